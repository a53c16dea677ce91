package restbridge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// A PassArguments route gets the arguments object untouched, its path
// parameters in the path and the key in its header, and neither a query
// string nor a body; the arguments stay with that one request.
func TestPassArgumentsHandsTheObjectOver(t *testing.T) {
	t.Parallel()
	var b *restbridge.Bridge
	type seenReq struct {
		path, rawPath, rawQuery, body, key string
		object                             string
		routed                             []bool
		nestedGet, nestedSameCtx           bool
	}
	var got seenReq
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/items/{id}/notes", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = seenReq{path: r.URL.Path, rawPath: r.URL.RawPath, rawQuery: r.URL.RawQuery, body: string(body), key: r.Header.Get("X-Idempotency-Key")}
		args := restbridge.ArgumentsFrom(r)
		if args == nil {
			w.WriteHeader(500)
			return
		}
		got.object = string(args.Object)
		for _, name := range []string{"id", "idempotency_key", "text", "ids"} {
			got.routed = append(got.routed, args.Routed([]byte(name)))
		}
		// A request made inside this one, with its context, is not it.
		nested, _ := http.NewRequestWithContext(r.Context(), "POST", "/api/items/other/notes", nil)
		got.nestedSameCtx = restbridge.ArgumentsFrom(nested) != nil
		b.Get(r.Context(), nil, "/api/peek", nil)
		w.WriteHeader(201)
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	mux.HandleFunc("GET /api/peek", func(w http.ResponseWriter, r *http.Request) {
		got.nestedGet = restbridge.ArgumentsFrom(r) != nil || !restbridge.InProcess(r.Context())
		_, _ = io.WriteString(w, `{}`)
	})
	b = restbridge.New(mux, restbridge.Options{})
	h := b.MustHandler(restbridge.Route{Method: "POST", Path: "/api/items/{id}/notes", PassArguments: true})
	args := `{"text":"n\u00e3o","id":"a/b","ids":[1,2],"idempotency_key":"k-9"}`
	res, err := h(context.Background(), &mcp.CallToolRequest{Name: "t", Arguments: json.RawMessage(args)})
	if err != nil || res.IsError || res.Content[0].Text != `{"ok":true}` {
		t.Fatalf("call: %v %+v", err, res)
	}
	want := seenReq{path: "/api/items/a/b/notes", rawPath: "/api/items/a%2Fb/notes", key: "k-9", object: args, routed: []bool{true, true, false, false}}
	if got.path != want.path || got.rawPath != want.rawPath || got.rawQuery != "" || got.body != "" || got.key != want.key || got.object != want.object ||
		len(got.routed) != 4 || got.routed[0] != true || got.routed[1] != true || got.routed[2] || got.routed[3] {
		t.Fatalf("the API saw %+v, want %+v", got, want)
	}
	if got.nestedSameCtx || got.nestedGet {
		t.Fatalf("the arguments leaked into another request: same context %v, Get %v", got.nestedSameCtx, got.nestedGet)
	}
	// Network requests never carry arguments.
	r, _ := http.NewRequest("POST", "/api/items/a/notes", nil)
	if restbridge.ArgumentsFrom(r) != nil {
		t.Fatal("a request of its own has arguments")
	}
}

// The bridge still refuses what cannot make a request, before the API
// sees anything.
func TestPassArgumentsRefusesBadPathParameters(t *testing.T) {
	t.Parallel()
	reached := false
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true })
	b := restbridge.New(api, restbridge.Options{})
	h := b.MustHandler(restbridge.Route{Method: "POST", Path: "/api/items/{id}", PassArguments: true})
	for _, args := range []string{`{}`, `{"id":".."}`, `{"id":{"x":1}}`, `{"id":"a","id":"b"}`, `{"id":"a","idempotency_key":5}`, `[1]`} {
		res, err := h(context.Background(), &mcp.CallToolRequest{Name: "t", Arguments: json.RawMessage(args)})
		if err != nil || !res.IsError || reached {
			t.Fatalf("%s: %v %+v (reached %v)", args, err, res, reached)
		}
	}
}
