package restbridge_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// TestGetForwardsAndEscapes reads a route in-process: the escaped id stays
// one path segment, the query and the forwarded header arrive, and the
// request is marked in-process.
func TestGetForwardsAndEscapes(t *testing.T) {
	t.Parallel()
	var seen *http.Request
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	b := restbridge.New(api, restbridge.Options{ForwardHeaders: []string{"X-Workspace-Id"}})
	req := &mcp.Request{Header: http.Header{"X-Workspace-Id": {"ws-1"}, "Authorization": {"Bearer secret"}}}
	status, body := b.Get(context.Background(), req, "/api/v1/emails/a%2Fb", url.Values{"limit": {"5"}})
	if status != http.StatusTeapot || string(body) != `{"ok":true}` {
		t.Fatalf("got %d %s", status, body)
	}
	if seen.URL.EscapedPath() != "/api/v1/emails/a%2Fb" || seen.URL.Query().Get("limit") != "5" {
		t.Fatalf("url %s", seen.URL)
	}
	if seen.Header.Get("X-Workspace-Id") != "ws-1" || seen.Header.Get("Authorization") != "" {
		t.Fatalf("headers %v", seen.Header)
	}
	if !restbridge.InProcess(seen.Context()) {
		t.Fatal("not marked in-process")
	}
}
