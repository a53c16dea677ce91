package mcp

import "github.com/go-json-experiment/json"

// Content is one block of a tool result or prompt message. Build it with
// [TextContent], [ImageContent], [AudioContent], [ResourceLink] or
// [EmbeddedResource]; the era decides how it is written (2025-03-26 clients
// know no resource_link, so one becomes a text block for them).
type Content struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	Data     string            `json:"data,omitempty"`
	MimeType string            `json:"mimeType,omitempty"`
	URI      string            `json:"uri,omitempty"`
	Name     string            `json:"name,omitempty"`
	Title    string            `json:"title,omitempty"`
	Resource *ResourceContents `json:"resource,omitempty"`
	Meta     map[string]any    `json:"_meta,omitempty"`
}

// ResourceContents is what resources/read returns for one URI, and what an
// embedded resource carries: Text for textual content, Blob (base64) for
// binary content.
type ResourceContents struct {
	URI      string         `json:"uri"`
	MimeType string         `json:"mimeType,omitempty"`
	Text     *string        `json:"text,omitempty"`
	Blob     string         `json:"blob,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// TextContent is a text block.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// ImageContent is a base64 image block.
func ImageContent(base64Data, mimeType string) Content {
	return Content{Type: "image", Data: base64Data, MimeType: mimeType}
}

// AudioContent is a base64 audio block.
func AudioContent(base64Data, mimeType string) Content {
	return Content{Type: "audio", Data: base64Data, MimeType: mimeType}
}

// ResourceLink points at a resource the client may read with resources/read.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{Type: "resource_link", URI: uri, Name: name, MimeType: mimeType}
}

// EmbeddedResource carries a resource's contents inline.
func EmbeddedResource(rc ResourceContents) Content {
	return Content{Type: "resource", Resource: &rc}
}

// TextResource returns textual resource contents.
func TextResource(uri, mimeType, text string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Text: &text}
}

// BlobResource returns binary resource contents, already base64-encoded.
func BlobResource(uri, mimeType, base64Blob string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Blob: base64Blob}
}

// forVersion returns the block as the given revision can read it.
func (c Content) forVersion(version string) Content {
	if version != Version20250326 {
		return c
	}
	c.Title = ""
	if c.Type == "resource_link" {
		text := "Resource: " + c.URI
		if c.Name != "" {
			text = "Resource " + c.Name + ": " + c.URI
		}
		return Content{Type: "text", Text: text}
	}
	return c
}

// MarshalJSON writes only the members of the block's type, so a text block
// always has its text, even an empty one.
func (c Content) MarshalJSON() ([]byte, error) {
	type common struct {
		Type string         `json:"type"`
		Meta map[string]any `json:"_meta,omitempty"`
	}
	switch c.Type {
	case "text":
		return json.Marshal(struct {
			Type string         `json:"type"`
			Text string         `json:"text"`
			Meta map[string]any `json:"_meta,omitempty"`
		}{c.Type, c.Text, c.Meta})
	case "image", "audio":
		return json.Marshal(struct {
			Type     string         `json:"type"`
			Data     string         `json:"data"`
			MimeType string         `json:"mimeType"`
			Meta     map[string]any `json:"_meta,omitempty"`
		}{c.Type, c.Data, c.MimeType, c.Meta})
	case "resource_link":
		return json.Marshal(struct {
			Type     string         `json:"type"`
			URI      string         `json:"uri"`
			Name     string         `json:"name"`
			Title    string         `json:"title,omitempty"`
			MimeType string         `json:"mimeType,omitempty"`
			Meta     map[string]any `json:"_meta,omitempty"`
		}{c.Type, c.URI, c.Name, c.Title, c.MimeType, c.Meta})
	case "resource":
		return json.Marshal(struct {
			Type     string            `json:"type"`
			Resource *ResourceContents `json:"resource"`
			Meta     map[string]any    `json:"_meta,omitempty"`
		}{c.Type, c.Resource, c.Meta})
	}
	return json.Marshal(common{c.Type, c.Meta})
}
