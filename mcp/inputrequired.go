package mcp

import (
	"fmt"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// InputRequired is a multi-round-trip interim result (2026-07-28): the
// server needs answers from the client (a confirmation, a choice) before it
// can finish. The client asks its user, then sends the same request again
// with inputResponses and the requestState echoed; that retry is a new,
// independent request any replica can serve.
type InputRequired struct {
	// Requests are keyed by names the server chooses; the retry answers
	// under the same keys.
	Requests map[string]InputRequest
	// Data is sealed into requestState and handed back on the retry as
	// State.Data; the client can neither read nor change it.
	Data []byte
	// TTL is how long the requestState stays valid; zero takes the
	// sealer's default (5 minutes). A question the person answers out of
	// band (an approval link) may need longer.
	TTL time.Duration
}

// InputRequest is one question for the client: an elicitation, a sampling
// request or a roots listing, written without jsonrpc or id.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// Input request methods a server may ask of a 2026-07-28 client.
const (
	MethodElicit    = "elicitation/create"
	MethodSample    = "sampling/createMessage"
	MethodListRoots = "roots/list"
)

// ElicitForm asks the person to fill a flat form. requestedSchema is an
// object schema whose properties are primitives (string, number, integer,
// boolean, enums); never ask for secrets this way.
func ElicitForm(message string, requestedSchema map[string]any) InputRequest {
	return InputRequest{Method: MethodElicit, Params: map[string]any{
		"mode": "form", "message": message, "requestedSchema": requestedSchema,
	}}
}

// ElicitURL asks the person to open a URL (to approve, sign in, pay); accept
// only means they agreed to open it.
func ElicitURL(message, url string) InputRequest {
	return InputRequest{Method: MethodElicit, Params: map[string]any{
		"mode": "url", "message": message, "url": url,
	}}
}

// requiredCapability names the client capability an input request needs, in
// the shape of a -32021 error's requiredCapabilities, or nil when the client
// declared it.
func (ir InputRequest) missingCapability(c ClientCapabilities) map[string]any {
	switch ir.Method {
	case MethodElicit:
		mode := "form"
		if p, ok := ir.Params.(map[string]any); ok {
			if m, ok := p["mode"].(string); ok && m != "" {
				mode = m
			}
		}
		if (mode == "url" && c.ElicitURL()) || (mode != "url" && c.ElicitForm()) {
			return nil
		}
		return map[string]any{"elicitation": map[string]any{mode: map[string]any{}}}
	case MethodSample:
		if c.Has("sampling") {
			return nil
		}
		return map[string]any{"sampling": map[string]any{}}
	case MethodListRoots:
		if c.Has("roots") {
			return nil
		}
		return map[string]any{"roots": map[string]any{}}
	}
	return nil
}

// InputResponse is the client's raw answer to one input request.
type InputResponse struct {
	// Method is the method of the request this answers, as sealed in the
	// state ("" when the retry carried no state).
	Method string
	// Raw is the answer as sent.
	Raw jsontext.Value
}

// ElicitResult is the answer to an elicitation.
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel".
	Action string `json:"action"`
	// Content holds the form's values on accept (form mode only).
	Content map[string]any `json:"content,omitempty"`
}

// Elicit parses the answer as an elicitation result, strictly.
func (r InputResponse) Elicit() (*ElicitResult, error) {
	var res ElicitResult
	if err := json.Unmarshal(r.Raw, &res, json.RejectUnknownMembers(false)); err != nil {
		return nil, fmt.Errorf("elicitation result: %w", err)
	}
	switch res.Action {
	case "accept":
	case "decline", "cancel":
		if res.Content != nil {
			return nil, fmt.Errorf("elicitation result: content is only allowed with accept")
		}
	default:
		return nil, fmt.Errorf("elicitation result: action must be accept, decline or cancel")
	}
	for k, v := range res.Content {
		switch x := v.(type) {
		case string, float64, bool:
		case []any:
			for _, item := range x {
				if _, ok := item.(string); !ok {
					return nil, fmt.Errorf("elicitation result: content %q must hold strings only", k)
				}
			}
		default:
			return nil, fmt.Errorf("elicitation result: content %q must be a string, number, boolean or list of strings", k)
		}
	}
	return &res, nil
}

// parseInputResponses reads params.inputResponses strictly: an object whose
// members are objects. Only keys the sealed state asked for are kept (the
// spec says unknown keys are ignored); each kept answer must parse as the
// answer to the method it was asked with.
func parseInputResponses(raw jsontext.Value, asked map[string]string) (map[string]InputResponse, *Error) {
	if raw == nil {
		return nil, nil
	}
	if raw.Kind() != '{' {
		return nil, InvalidParams("inputResponses must be an object")
	}
	var members map[string]jsontext.Value
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, InvalidParams("inputResponses must be an object")
	}
	out := make(map[string]InputResponse, len(members))
	for key, v := range members {
		method, known := asked[key]
		if asked != nil && !known {
			continue
		}
		if v.Kind() != '{' {
			return nil, InvalidParams("inputResponses[%q] must be an object", key)
		}
		resp := InputResponse{Method: method, Raw: v}
		if method == MethodElicit {
			if _, err := resp.Elicit(); err != nil {
				return nil, InvalidParams("inputResponses[%q]: %v", key, err)
			}
		}
		out[key] = resp
	}
	return out, nil
}
