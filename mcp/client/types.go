package client

import (
	"encoding/json"

	"github.com/kobana/kobana-mcp/mcp"
)

// Tool is one entry of tools/list, as a client reads it.
type Tool struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  json.RawMessage      `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// ReadOnly reports whether the tool declares that it only reads.
func (t *Tool) ReadOnly() bool {
	return t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
}

// Destructive reports whether the tool may destroy or send something: as
// the specification's defaults say, a tool that is not read-only and does
// not say otherwise is.
func (t *Tool) Destructive() bool {
	if t.ReadOnly() {
		return false
	}
	return t.Annotations == nil || t.Annotations.DestructiveHint == nil || *t.Annotations.DestructiveHint
}

// CallToolResult is the final answer of tools/call.
type CallToolResult struct {
	Content           []mcp.Content   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Resource is one entry of resources/list.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// ReadResourceResult is the answer of resources/read.
type ReadResourceResult struct {
	Contents []mcp.ResourceContents `json:"contents"`
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string               `json:"name"`
	Title       string               `json:"title,omitempty"`
	Description string               `json:"description,omitempty"`
	Arguments   []mcp.PromptArgument `json:"arguments,omitempty"`
}

// GetPromptResult is the answer of prompts/get.
type GetPromptResult struct {
	Description string              `json:"description,omitempty"`
	Messages    []mcp.PromptMessage `json:"messages"`
}

// DiscoverResult is the answer of server/discover.
type DiscoverResult struct {
	SupportedVersions []string                   `json:"supportedVersions"`
	Capabilities      map[string]json.RawMessage `json:"capabilities"`
	Instructions      string                     `json:"instructions,omitempty"`
	// ServerInfo is the server's identity, from the result's _meta.
	ServerInfo mcp.Implementation `json:"-"`
}
