package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/client"
)

// printContent writes a result's content blocks for a person: text as
// it is (JSON indented), the others as one line saying what they are.
func printContent(out io.Writer, content []mcp.Content) {
	for _, c := range content {
		switch c.Type {
		case "text":
			fmt.Fprintln(out, maybeIndent(c.Text))
		case "resource_link":
			fmt.Fprintf(out, "[link] %s %s\n", c.URI, c.Name)
		case "resource":
			if c.Resource != nil && c.Resource.Text != nil {
				fmt.Fprintln(out, maybeIndent(*c.Resource.Text))
			} else if c.Resource != nil {
				fmt.Fprintf(out, "[resource] %s (%s, binary)\n", c.Resource.URI, c.Resource.MimeType)
			}
		default:
			fmt.Fprintf(out, "[%s] %s, %d bytes of base64, not printed\n", c.Type, c.MimeType, len(c.Data))
		}
	}
}

// maybeIndent indents text that is a JSON object or array (the products'
// tools answer JSON), and leaves any other text alone.
func maybeIndent(text string) string {
	t := bytes.TrimSpace([]byte(text))
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') || !json.Valid(t) {
		return text
	}
	return indentJSON(t)
}

func indentJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// sameJSONAsText reports whether a text block already said what
// structuredContent says (a server that sends both, as the specification
// asks for compatibility), so it is printed once.
func sameJSONAsText(res *client.CallToolResult) bool {
	var structured any
	if json.Unmarshal(res.StructuredContent, &structured) != nil {
		return false
	}
	want, _ := json.Marshal(structured)
	for _, c := range res.Content {
		var v any
		if c.Type == "text" && json.Unmarshal([]byte(c.Text), &v) == nil {
			if got, _ := json.Marshal(v); bytes.Equal(got, want) {
				return true
			}
		}
	}
	return false
}
