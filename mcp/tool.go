package mcp

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is one entry of tools/list and the code tools/call runs for it.
type Tool struct {
	// Name is the wire name: unique, case-sensitive, [A-Za-z0-9_.-]{1,128}.
	Name string
	// Title is the display name (dropped for 2025-03-26 clients).
	Title string
	// Description tells a model when and how to use the tool.
	Description string
	// InputSchema is a JSON Schema 2020-12 object schema of the arguments.
	// Nil means "takes no arguments".
	InputSchema *jsonschema.Schema
	// OutputSchema, when set, describes StructuredContent.
	OutputSchema *jsonschema.Schema
	// Annotations are hints a client uses to decide whether to ask the
	// person before running the tool. Set all four explicitly.
	Annotations *ToolAnnotations
	// Meta is sent as the tool's _meta.
	Meta map[string]any
	// Requires is checked by the Authorizer both to list and to call.
	Requires Requirement
	// StrictArguments refuses arguments the schema does not declare, naming
	// the key. Read-only tools are always strict: a misspelt filter must
	// never be dropped silently.
	StrictArguments bool
	// SkipSchemaValidation leaves argument validation to the handler, for
	// tools whose handler validates against the same schema (a REST route
	// mirrored by restbridge). Strict unknown-key checks still apply
	// unless HandlerRefusesUnknownArguments.
	SkipSchemaValidation bool
	// HandlerRefusesUnknownArguments leaves the unknown-key check of a
	// strict tool to its handler too: a REST route mirrored by restbridge
	// names an unknown argument in its product's own error envelope (a
	// validation error with a detail per field), the same answer its API
	// gives for an unknown query parameter, instead of the transport's
	// plain-text message.
	HandlerRefusesUnknownArguments bool
	// Handler runs the tool.
	Handler ToolHandler

	// Confirm describes, for a destructive tool ([Tool.IsDestructive]), what
	// the call is about to do, naming its target, so the person can confirm
	// it (see [ConfirmFunc]). Nil asks with a generic message naming the
	// tool and its arguments.
	Confirm ConfirmFunc
	// ConsumesConfirmation says the handler consumes the confirmation's
	// nonce itself, in the same database transaction as the operation, and
	// reports a replay with [Confirmation.Replayed] (see
	// [ConfirmationFrom]). Otherwise the nonce is consumed in the
	// [NonceStore] just before the handler runs.
	ConsumesConfirmation bool
	// ConfirmsItself exempts a destructive tool from the server's
	// confirmation step: its handler asks for its own confirmation (with
	// [InputRequiredResult]) and enforces it.
	ConfirmsItself bool
}

// ToolAnnotations are the behaviour hints of a tool. Pointers distinguish
// "false" from "not said"; the spec's defaults for unsaid hints are the
// pessimistic ones, so products set every hint.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Bool returns a pointer to b, for annotation literals.
func Bool(b bool) *bool { return &b }

// IsReadOnly reports whether the tool declares it only reads.
func (t *Tool) IsReadOnly() bool {
	return t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
}

// IsDestructive reports whether the tool may destroy or send something out.
// As in the spec, a tool that is not read-only and does not say otherwise
// counts as destructive.
func (t *Tool) IsDestructive() bool {
	if t.IsReadOnly() {
		return false
	}
	if t.Annotations == nil || t.Annotations.DestructiveHint == nil {
		return true
	}
	return *t.Annotations.DestructiveHint
}

// ToolHandler runs a tool. Returning an error other than an [*Error] answers
// -32603 with the details logged; a failure the model can act on belongs in
// a result with IsError set.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// CallToolRequest is what a tool handler receives.
type CallToolRequest struct {
	Request
	// Name is the tool's name.
	Name string
	// Arguments is the raw arguments object ({} when none were sent).
	Arguments json.RawMessage
}

// CallToolResult is a tool's answer. Either a final result (Content, with
// IsError for failures the model should see) or, through [InputRequired], a
// request for more input from the client.
type CallToolResult struct {
	Content           []Content
	StructuredContent any
	IsError           bool
	Meta              map[string]any
	inputRequired     *InputRequired
}

// TextResult is a final result with one text block.
func TextResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{TextContent(text)}}
}

// ErrorResult is a tool execution error the model can read and act on.
func ErrorResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{TextContent(text)}, IsError: true}
}

// InputRequiredResult asks the client for input before the tool can finish
// (2026-07-28 multi-round-trip requests).
func InputRequiredResult(ir *InputRequired) *CallToolResult {
	return &CallToolResult{inputRequired: ir}
}
