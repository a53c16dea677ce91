package mcp

import "context"

// Prompt is a ready-made conversation starter, listed by prompts/list and
// rendered by prompts/get.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Meta        map[string]any
	Requires    Requirement
	// Get renders the prompt. Required arguments are checked before it runs.
	Get PromptHandler
	// Complete suggests values for an argument.
	Complete CompleteHandler
}

// PromptArgument is one named, string-valued argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitzero"`
}

// PromptHandler renders a prompt.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

// GetPromptRequest is what a prompt handler receives.
type GetPromptRequest struct {
	Request
	Name      string
	Arguments map[string]string
}

// GetPromptResult is a rendered prompt, or a request for input.
type GetPromptResult struct {
	Description   string
	Messages      []PromptMessage
	Meta          map[string]any
	inputRequired *InputRequired
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// PromptInputRequired asks the client for input before the prompt renders.
func PromptInputRequired(ir *InputRequired) *GetPromptResult {
	return &GetPromptResult{inputRequired: ir}
}

// CompleteHandler suggests values for one argument of a prompt or variable
// of a resource template.
type CompleteHandler func(ctx context.Context, req *CompleteRequest) (*Completion, error)

// CompleteRequest is what a completion handler receives.
type CompleteRequest struct {
	Request
	// Argument is the argument (or template variable) being completed.
	Argument string
	// Value is what the person has typed so far.
	Value string
	// Context holds the values of the other arguments already chosen.
	Context map[string]string
}

// Completion is a list of suggestions, at most 100 of them; the handler
// says how many there are in all and whether more exist.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitzero"`
}
