package rest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

type memoIn struct {
	ID    string `json:"id" in:"path"`
	Title string `json:"title,omitempty" maxLength:"20"`
}

func memoOp(method string) Operation {
	no := mcp.Bool(false)
	return Operation{ID: "memo_op", Method: method, Path: "/memo/{id}", Title: "Memo", Summary: "A memo.",
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: no, DestructiveHint: no, IdempotentHint: no, OpenWorldHint: no}}
}

func memoHandler(context.Context, *memoIn) (*Response, error) { return OK(map[string]any{}), nil }

// An input type is analysed once per method, whichever API declares it
// (docs/decisions.md "Inputs analysed once"), and what one API's caller
// does to its tool schemas never reaches another API over the same type.
func TestInputsAnalysedOnce(t *testing.T) {
	t.Parallel()
	first, second, post := New(Config{}), New(Config{}), New(Config{})
	Handle(first, memoOp("GET"), memoHandler)
	Handle(second, memoOp("GET"), memoHandler)
	Handle(post, memoOp("POST"), memoHandler)
	if first.ops[0].input != second.ops[0].input {
		t.Fatal("the same input type and method were analysed twice")
	}
	if first.ops[0].input == post.ops[0].input {
		t.Fatal("a POST shares the GET's analysis")
	}
	if got := first.ops[0].input.location["title"]; got != inQuery {
		t.Errorf("GET title travels in %q, want the query", got)
	}
	if got := post.ops[0].input.location["title"]; got != inBody {
		t.Errorf("POST title travels in %q, want the body", got)
	}

	bridge := restbridge.New(first, restbridge.Options{})
	before := schemaJSON(t, second.Tools(restbridge.New(second, restbridge.Options{}))[0].InputSchema)
	tool := first.Tools(bridge)[0]
	tool.InputSchema.Properties["injected"] = &jsonschema.Schema{Type: "string"}
	tool.InputSchema.Properties["title"].MaxLength = jsonschema.Ptr(1)
	tool.InputSchema.Required = append(tool.InputSchema.Required, "injected")
	if after := schemaJSON(t, second.Tools(restbridge.New(second, restbridge.Options{}))[0].InputSchema); after != before {
		t.Errorf("a change to one API's tool schema reached another's:\nbefore %s\nafter  %s", before, after)
	}
	if got := schemaJSON(t, post.Tools(restbridge.New(post, restbridge.Options{}))[0].InputSchema); got == before {
		t.Errorf("the POST tool's schema is the GET's: %s", got)
	}
}

func schemaJSON(t *testing.T, s *jsonschema.Schema) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
