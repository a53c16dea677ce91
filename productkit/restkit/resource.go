package restkit

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// A product's resources read the API's own routes in-process
// (restbridge.Bridge.Get), so a resource shows exactly what its route
// shows the caller — the same scopes and role, another organization's id
// not found — and cannot drift from it.

// ResourceData GETs the route at path (the API base included) in-process
// and answers its data member, which must be an object. A 404 becomes the
// protocol's resource-not-found, any other 4xx an invalid-params error
// carrying the API's message, anything else an internal error: the one
// mapping every product's resources answer with.
func ResourceData(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, path string, q url.Values) (json.RawMessage, error) {
	status, body := b.Get(ctx, req, path, q)
	switch {
	case status == http.StatusNotFound:
		return nil, mcp.ErrResourceNotFound
	case status >= 400 && status < 500:
		return nil, mcp.InvalidParams("%s", APIMessage(body))
	case status != http.StatusOK:
		return nil, errUnreadable()
	}
	var doc struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Data) == 0 || doc.Data[0] != '{' {
		return nil, errUnreadable()
	}
	return doc.Data, nil
}

// ReadThrough is a resource that mirrors one route: its data under member,
// behind the product's notice that field values are third-party data
// (WithNotice), as the resource's JSON text.
func ReadThrough(ctx context.Context, b *restbridge.Bridge, req *mcp.ReadResourceRequest, path, notice, member string) (*mcp.ReadResourceResult, error) {
	data, err := ResourceData(ctx, b, &req.Request, path, nil)
	if err != nil {
		return nil, err
	}
	text, err := WithNotice(notice, member, data)
	if err != nil {
		return nil, err
	}
	return JSONResource(req.URI, text), nil
}

// JSONResource is a resource read answering one JSON text at uri.
func JSONResource(uri, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{mcp.TextResource(uri, "application/json", text)}}
}

func errUnreadable() error {
	return mcp.NewError(mcp.CodeInternalError, "the resource could not be read", nil)
}
