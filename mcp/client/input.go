package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/kobana/kobana-mcp/mcp"
)

// InputRequest is one question of an input_required result, keyed by a
// name the server chose.
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Elicitation is the params of an elicitation/create input request.
type Elicitation struct {
	// Mode is "form" (also when the server left it out) or "url".
	Mode    string `json:"mode"`
	Message string `json:"message"`
	// RequestedSchema is the form (form mode).
	RequestedSchema FormSchema `json:"requestedSchema"`
	// URL is what the person is asked to open (url mode).
	URL string `json:"url,omitempty"`
}

// FormSchema is the flat object schema of a form.
type FormSchema struct {
	Properties map[string]FormField `json:"properties"`
	Required   []string             `json:"required,omitempty"`
}

// FormField is one primitive property of a form.
type FormField struct {
	Type        string `json:"type"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Default     any    `json:"default,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
}

// Fields are the form's property names, required ones first, each group
// sorted, so a person is asked in the same order every time.
func (s FormSchema) Fields() []string {
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	return names
}

// IsRequired reports whether the form requires the field.
func (s FormSchema) IsRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// Elicitation reads the request as an elicitation.
func (r InputRequest) Elicitation() (*Elicitation, error) {
	if r.Method != mcp.MethodElicit {
		return nil, fmt.Errorf("not an elicitation: %s", r.Method)
	}
	var e Elicitation
	if err := json.Unmarshal(r.Params, &e); err != nil {
		return nil, fmt.Errorf("elicitation params: %w", err)
	}
	if e.Mode == "" {
		e.Mode = "form"
	}
	return &e, nil
}

// Answerer answers the server's elicitations, usually by asking a person.
// The answer is sent as the ElicitResult of that key: accept with the
// form's content, decline or cancel.
type Answerer interface {
	Elicit(ctx context.Context, key string, e *Elicitation) (mcp.ElicitResult, error)
}

// answer asks the Answerer each question, in key order. The client only
// declares form elicitation, so anything else is the server's mistake.
func (c *Client) answer(ctx context.Context, reqs map[string]InputRequest) (map[string]any, error) {
	if c.Answer == nil {
		return nil, fmt.Errorf("the server asked for input, and this client declared it cannot answer")
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		e, err := reqs[k].Elicitation()
		if err != nil {
			return nil, fmt.Errorf("input request %q: %w", k, err)
		}
		if e.Mode != "form" {
			return nil, fmt.Errorf("input request %q: elicitation mode %q, and this client declared form only", k, e.Mode)
		}
		res, err := c.Answer.Elicit(ctx, k, e)
		if err != nil {
			return nil, err
		}
		out[k] = res
	}
	return out, nil
}

func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
