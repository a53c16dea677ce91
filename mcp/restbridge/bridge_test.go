package restbridge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

type seen struct {
	method, path, rawQuery, body, idem, workspace, auth string
	inProcess                                           bool
	user                                                any
}

type userKey struct{}

// testAPI is a plain net/http API that records what reached it.
func testAPI(got *seen) http.Handler {
	mux := http.NewServeMux()
	record := func(r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		*got = seen{r.Method, r.URL.Path, r.URL.RawQuery, string(b), r.Header.Get("X-Idempotency-Key"),
			r.Header.Get("X-Workspace-Id"), r.Header.Get("Authorization"), restbridge.InProcess(r.Context()), r.Context().Value(userKey{})}
	}
	mux.HandleFunc("GET /api/items/{id}", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		if r.PathValue("id") == "missing" {
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"error":{"code":"not_found","message":"item not found"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"data":{"id":`+jsonString(r.PathValue("id"))+`}}`)
	})
	mux.HandleFunc("GET /api/items", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		_, _ = io.WriteString(w, `{"data":[],"meta":{"next_cursor":null}}`)
	})
	mux.HandleFunc("POST /api/items", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"data":{"id":"new"}}`)
	})
	mux.HandleFunc("DELETE /api/items/{id}", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		w.WriteHeader(204)
	})
	mux.HandleFunc("GET /api/admin", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		_, _ = io.WriteString(w, `{"secret":true}`)
	})
	mux.HandleFunc("GET /api/boom", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		w.WriteHeader(500)
		_, _ = io.WriteString(w, `panic: database password is hunter2`)
	})
	return mux
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func call(t *testing.T, b *restbridge.Bridge, route restbridge.Route, args string, indent string) *mcp.CallToolResult {
	t.Helper()
	h := b.MustHandler(route)
	ctx := context.WithValue(context.Background(), userKey{}, "alice")
	req := &mcp.CallToolRequest{Name: "t", Arguments: json.RawMessage(args)}
	req.Header = http.Header{"X-Workspace-Id": {"ws-1"}, "Authorization": {"Bearer mcp-token"}}
	_ = indent
	res, err := h(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func text(r *mcp.CallToolResult) string { return r.Content[0].Text }

func TestBridgeMapsArgumentsOntoTheRoute(t *testing.T) {
	t.Parallel()
	var got seen
	b := restbridge.New(testAPI(&got), restbridge.Options{ForwardHeaders: []string{"X-Workspace-Id", "Authorization"}})

	res := call(t, b, restbridge.Route{Method: "GET", Path: "/api/items/{id}"}, `{"id":"a b/c"}`, "")
	if res.IsError || text(res) != `{"data":{"id":"a b/c"}}` {
		t.Fatalf("get: %+v", res)
	}
	if got.path != "/api/items/a b/c" || !got.inProcess || got.user != "alice" || got.workspace != "ws-1" {
		t.Fatalf("request seen by the API: %+v", got)
	}
	if got.auth != "" {
		t.Fatalf("the MCP token must never reach the API, got %q", got.auth)
	}

	res = call(t, b, restbridge.Route{Method: "GET", Path: "/api/items"}, `{"status":"new","limit":10,"tags":["a","b"],"flag":true,"skip":null}`, "")
	if res.IsError || got.rawQuery != "flag=true&limit=10&status=new&tags=a&tags=b" {
		t.Fatalf("list query: %q %+v", got.rawQuery, res)
	}

	res = call(t, b, restbridge.Route{Method: "POST", Path: "/api/items", Query: []string{"dry_run"}}, `{"name":"x","nested":{"k":[1,2]},"idempotency_key":"k-1","dry_run":true}`, "")
	if res.IsError || got.body != `{"name":"x","nested":{"k":[1,2]}}` || got.idem != "k-1" || got.rawQuery != "dry_run=true" {
		t.Fatalf("create: %+v %+v", got, res)
	}

	res = call(t, b, restbridge.Route{Method: "DELETE", Path: "/api/items/{id}"}, `{"id":"x1","idempotency_key":"k-2"}`, "")
	if res.IsError || text(res) != `{"status":204}` || got.idem != "k-2" || got.rawQuery != "" {
		t.Fatalf("delete: %+v %+v", got, res)
	}
}

func TestBridgeMapsStatusesOntoResults(t *testing.T) {
	t.Parallel()
	var got seen
	b := restbridge.New(testAPI(&got), restbridge.Options{})
	res := call(t, b, restbridge.Route{Method: "GET", Path: "/api/items/{id}"}, `{"id":"missing"}`, "")
	if !res.IsError || !strings.Contains(text(res), `"not_found"`) {
		t.Fatalf("4xx must be isError with the body: %+v", res)
	}
	res = call(t, b, restbridge.Route{Method: "GET", Path: "/api/boom"}, `{}`, "")
	if !res.IsError || strings.Contains(text(res), "hunter2") || !strings.Contains(text(res), "HTTP 500") {
		t.Fatalf("5xx must be a generic isError: %+v", res)
	}
}

func TestBridgeKeepsIdentifiersInsideTheirRoute(t *testing.T) {
	t.Parallel()
	var got seen
	b := restbridge.New(testAPI(&got), restbridge.Options{})
	for _, id := range []string{"../admin", "..", ".", "a/../../admin", ""} {
		got = seen{}
		res := call(t, b, restbridge.Route{Method: "GET", Path: "/api/items/{id}"}, `{"id":`+jsonString(id)+`}`, "")
		if !res.IsError {
			t.Fatalf("id %q must be refused, got %+v", id, res)
		}
		if got.method != "" {
			t.Fatalf("id %q reached the API at %q", id, got.path)
		}
	}
	res := call(t, b, restbridge.Route{Method: "GET", Path: "/api/items/{id}"}, `{}`, "")
	if !res.IsError || !strings.Contains(text(res), `"id" is required`) {
		t.Fatalf("missing path parameter: %+v", res)
	}
	res = call(t, b, restbridge.Route{Method: "GET", Path: "/api/items/{id}"}, `{"id":{"x":1}}`, "")
	if !res.IsError {
		t.Fatalf("object id must be refused: %+v", res)
	}
}
