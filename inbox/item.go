package inbox

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// readItem is the body of every "get one" operation: resolve the caller's
// workspace, look the item up inside it, and answer it as the API shows it
// ({"data": …}). An item that is not there for this caller — missing,
// deleted, or another organization's — is 404 naming what was asked for,
// never 403 (product-decisions §3).
func readItem[R any, J any](ctx context.Context, s *service, what string, lookup func(sc scope) (R, error), show func(R) J) (*rest.Response, error) {
	sc, err := s.workspaceScope(ctx)
	if err != nil {
		return nil, err
	}
	r, err := lookup(sc)
	if errors.Is(err, store.ErrNotFound) {
		return nil, rest.NotFound(what)
	}
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": show(r)}), nil
}
