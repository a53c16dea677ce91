package restkit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// What the products' prompts and resources share: they read the API's
// own routes in-process (restbridge.Bridge.Get), so they show exactly what
// the route shows the caller and cannot drift from it.

// UserPrompt is a prompt of one user message.
func UserPrompt(description, text string) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Description: description, Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(text)}}}
}

// APIMessage is the message of an API error body {"error":{"message"}},
// "" when the body has none.
func APIMessage(body []byte) string {
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Message
}

// GetJSON GETs the route at path (the API base included) in-process and
// decodes its whole answer into out; a 4xx answer becomes an
// invalid-params error carrying the API's message (a prompt argument naming
// something the caller cannot see), anything else an internal error.
func GetJSON(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, path string, q url.Values, out any) error {
	status, body := b.Get(ctx, req, path, q)
	if status != http.StatusOK {
		if status >= 400 && status < 500 {
			return mcp.InvalidParams("%s", APIMessage(body))
		}
		return mcp.NewError(mcp.CodeInternalError, "the prompt's data could not be read", nil)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return mcp.NewError(mcp.CodeInternalError, "the prompt's data could not be read", nil)
	}
	return nil
}
