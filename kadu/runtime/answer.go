package runtime

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/wflang"
	"github.com/kobana/kobana-mcp/mcp"
)

// toolAnswer is what a tool call gave: its text, the same as a JSON value
// (the text itself when it is JSON, else a JSON string), and whether it
// failed.
type toolAnswer struct {
	Text   string
	Value  json.RawMessage
	Failed bool
	// Error says why it failed, for people and for the step's record.
	Error string
	// Code is the error code of a failure the runtime made itself
	// (errorAnswer), empty for a tool's own answer.
	Code string
}

// errorAnswer is a failure as the workflow and the model read it:
// {"error":{"code":…,"message":…}}, as the products' own errors are.
func errorAnswer(code, msg string) toolAnswer {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": msg}})
	return toolAnswer{Text: string(b), Value: b, Failed: true, Error: code + ": " + msg, Code: code}
}

// codeBudget is the code of a step whose expression went over the
// evaluation budget (kadu/wflang, budget.go); the execution it stops
// fails with the same code.
const codeBudget = "expression_budget_exceeded"

// exprFailure is a step that failed evaluating one of its expressions:
// code, or codeBudget when the evaluation went over the budget.
func exprFailure(code, prefix string, err error) toolAnswer {
	if errors.Is(err, wflang.ErrBudget) {
		code = codeBudget
	}
	return errorAnswer(code, prefix+err.Error())
}

// failureCode is the execution's error code when a step's failure stops
// it.
func failureCode(ans toolAnswer) string {
	if ans.Code == codeBudget {
		return codeBudget
	}
	return "step_failed"
}

func answerOf(res *mcp.CallToolResult, limit int) toolAnswer {
	var parts []string
	for _, c := range res.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	text := strings.Join(parts, "\n")
	a := toolAnswer{Text: text, Failed: res.IsError}
	if len(text) > limit {
		a.Text = text[:limit]
		b, _ := json.Marshal(map[string]any{"truncated": true, "text": a.Text})
		a.Value = b
	} else if json.Valid([]byte(text)) && text != "" {
		a.Value = json.RawMessage(text)
	} else {
		a.Value, _ = json.Marshal(text)
	}
	if a.Failed {
		a.Error = records.Summarize(text, 500)
	}
	return a
}

// canonicalJSON is the RFC 8785 form of a call's arguments, as approvals
// store them ({} for none).
func canonicalJSON(raw json.RawMessage) (string, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return "{}", nil
	}
	v := jsontext.Value(raw).Clone()
	if err := v.Canonicalize(); err != nil {
		return "", err
	}
	return string(v), nil
}

func argsOrNull(args json.RawMessage) json.RawMessage {
	if json.Valid(args) {
		return args
	}
	b, _ := json.Marshal(string(args))
	return b
}

// wflangMaxResult is how much of a tool's answer a step keeps.
const wflangMaxResult = 256 << 10
