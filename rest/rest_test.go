package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/rest"
)

// notes is a tiny in-memory API declared with package rest.
type notes struct {
	mu    sync.Mutex
	items map[string]string
	idem  []string
}

type listIn struct {
	Status string `json:"status,omitempty" in:"query" enum:"open,closed" jsonschema:"Only notes in this status."`
	Limit  int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"100"`
}

type getIn struct {
	ID string `json:"id" in:"path"`
}

type createIn struct {
	Title  string `json:"title" maxLength:"20" jsonschema:"The note's title."`
	Body   string `json:"body,omitempty"`
	DryRun bool   `json:"dry_run,omitempty" in:"query"`
}

func ro() mcp.ToolAnnotations {
	return mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
}

func (n *notes) api() *rest.API {
	a := rest.New(rest.Config{Title: "Notes", Version: "1.0.0", BasePath: "/api/v1"})
	rest.Handle(a, rest.Operation{ID: "notes_list", Method: "GET", Path: "/notes", Title: "List notes", Summary: "Lists notes.", Annotations: ro(),
		Requires: mcp.Requirement{Scopes: []string{"notes.read"}}},
		func(ctx context.Context, in *listIn) (*rest.Response, error) {
			return rest.OK(map[string]any{"data": []any{}, "meta": map[string]any{"status": in.Status, "limit": in.Limit}}), nil
		})
	rest.Handle(a, rest.Operation{ID: "notes_get", Method: "GET", Path: "/notes/{id}", Title: "Get a note", Summary: "Gets one note.", Annotations: ro()},
		func(ctx context.Context, in *getIn) (*rest.Response, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			t, ok := n.items[in.ID]
			if !ok {
				return nil, rest.NotFound("note")
			}
			return rest.OK(map[string]any{"data": map[string]any{"id": in.ID, "title": t}}), nil
		})
	rest.Handle(a, rest.Operation{ID: "notes_create", Method: "POST", Path: "/notes", Title: "Create a note", Summary: "Creates a note.",
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)}},
		func(ctx context.Context, in *createIn) (*rest.Response, error) {
			if in.DryRun {
				return rest.OK(map[string]any{"data": map[string]any{"title": in.Title}}), nil
			}
			n.mu.Lock()
			defer n.mu.Unlock()
			id := fmt.Sprintf("n%d", len(n.items)+1)
			n.items[id] = in.Title
			return rest.Created(map[string]any{"data": map[string]any{"id": id, "title": in.Title}}), nil
		})
	rest.Handle(a, rest.Operation{ID: "notes_delete", Method: "DELETE", Path: "/notes/{id}", Title: "Delete a note", Summary: "Deletes a note.",
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}},
		func(ctx context.Context, in *getIn) (*rest.Response, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			if _, ok := n.items[in.ID]; !ok {
				return nil, rest.NotFound("note")
			}
			delete(n.items, in.ID)
			return rest.NoContent(), nil
		})
	rest.HandleRaw(a, rest.Operation{ID: "notes_download", Method: "GET", Path: "/notes/{id}/raw"}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "raw")
	})
	return a
}

func restCall(t *testing.T, srv *httptest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func details(out map[string]any) string {
	b, _ := json.Marshal(out["error"].(map[string]any)["details"])
	return string(b)
}

func TestRESTValidatesWithTheDeclaredSchema(t *testing.T) {
	t.Parallel()
	n := &notes{items: map[string]string{"n1": "first"}}
	srv := httptest.NewServer(n.api())
	defer srv.Close()

	if code, out := restCall(t, srv, "GET", "/api/v1/notes/n1", ""); code != 200 || out["data"].(map[string]any)["title"] != "first" {
		t.Fatalf("get: %d %v", code, out)
	}
	if code, _ := restCall(t, srv, "GET", "/api/v1/notes/nope", ""); code != 404 {
		t.Fatalf("unknown id: %d", code)
	}
	code, out := restCall(t, srv, "GET", "/api/v1/notes?status=bogus&limit=0&colour=red", "")
	if code != 422 {
		t.Fatalf("invalid list: %d %v", code, out)
	}
	for _, want := range []string{`"field":"colour","message":"unknown query parameter"`, `"field":"limit"`, `"field":"status"`} {
		if !strings.Contains(details(out), want) {
			t.Errorf("details %s lack %s", details(out), want)
		}
	}
	code, out = restCall(t, srv, "POST", "/api/v1/notes", `{"body":"x","extra":1,"title":"this title is far too long"}`)
	if code != 422 || !strings.Contains(details(out), `"field":"extra","message":"unknown field"`) || !strings.Contains(details(out), `"field":"title"`) {
		t.Fatalf("invalid create: %d %s", code, details(out))
	}
	code, out = restCall(t, srv, "POST", "/api/v1/notes", `{}`)
	if code != 422 || !strings.Contains(details(out), `"field":"title","message":"is required"`) {
		t.Fatalf("missing title: %d %v", code, out)
	}
	if code, _ := restCall(t, srv, "POST", "/api/v1/notes", `[1]`); code != 422 {
		t.Fatalf("array body: %d", code)
	}
	if code, _ := restCall(t, srv, "POST", "/api/v1/notes", `{"title":`); code != 400 {
		t.Fatalf("broken JSON: %d", code)
	}
	if code, _ := restCall(t, srv, "GET", "/api/v1/nowhere", ""); code != 404 {
		t.Fatalf("unknown route: %d", code)
	}
	code, out = restCall(t, srv, "GET", "/api/v1/openapi.json", "")
	if code != 200 || out["openapi"] != "3.1.0" {
		t.Fatalf("openapi: %d %v", code, out)
	}
	paths := out["paths"].(map[string]any)
	get := paths["/api/v1/notes/{id}"].(map[string]any)["get"].(map[string]any)
	if get["operationId"] != "notes_get" || get["x-mcp-tool"] == nil {
		t.Fatalf("openapi entry: %v", get)
	}
	if raw := paths["/api/v1/notes/{id}/raw"].(map[string]any)["get"].(map[string]any); raw["x-mcp-tool"] != nil {
		t.Fatalf("a REST-only operation must not claim a tool: %v", raw)
	}
}

// mcpPost sends one 2026-07-28 request to the MCP endpoint.
func mcpPost(t *testing.T, url, method, name string, params map[string]any) map[string]any {
	t.Helper()
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func toolCall(t *testing.T, url, tool string, args map[string]any) (string, bool) {
	t.Helper()
	out := mcpPost(t, url, "tools/call", tool, map[string]any{"name": tool, "arguments": args})
	res, ok := out["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: %v", tool, out)
	}
	isErr, _ := res["isError"].(bool)
	return res["content"].([]any)[0].(map[string]any)["text"].(string), isErr
}

func TestToolsMirrorTheirRoutes(t *testing.T) {
	t.Parallel()
	n := &notes{items: map[string]string{"n1": "first"}}
	api := n.api()
	h := mcp.MustNewHandler(mcp.Options{Name: "notes", Version: "1", TextIndent: "  ", Confirm: mcp.ConfirmOptions{Disabled: true}}, mcp.Catalog{Tools: api.Tools(restbridge.New(api, restbridge.Options{}))})
	srv := httptest.NewServer(h)
	defer srv.Close()

	list := mcpPost(t, srv.URL, "tools/list", "", map[string]any{})
	tools := list["result"].(map[string]any)["tools"].([]any)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "notes_list,notes_get,notes_create,notes_delete" {
		t.Fatalf("tools: %v", names)
	}
	create := tools[2].(map[string]any)["inputSchema"].(map[string]any)["properties"].(map[string]any)
	if create["idempotency_key"] == nil || create["title"] == nil || create["dry_run"] == nil {
		t.Fatalf("create schema: %v", create)
	}
	if get := tools[1].(map[string]any)["inputSchema"].(map[string]any)["properties"].(map[string]any); get["idempotency_key"] != nil {
		t.Fatalf("reads take no idempotency key: %v", get)
	}

	text, isErr := toolCall(t, srv.URL, "notes_get", map[string]any{"id": "n1"})
	if isErr || text != "{\n  \"data\": {\n    \"id\": \"n1\",\n    \"title\": \"first\"\n  }\n}" {
		t.Fatalf("indented get: %q", text)
	}
	text, isErr = toolCall(t, srv.URL, "notes_list", map[string]any{"status": "open", "limit": 5})
	if isErr || !strings.Contains(text, `"limit": 5`) || !strings.Contains(text, `"status": "open"`) {
		t.Fatalf("list: %s", text)
	}
	text, isErr = toolCall(t, srv.URL, "notes_list", map[string]any{"satus": "open"})
	// In the API's own envelope, as ?satus= is (seed 002, VALIDATION_ERROR
	// naming the key).
	if !isErr || !strings.Contains(text, `"code": "validation_failed"`) || !strings.Contains(text, `"field": "satus"`) || !strings.Contains(text, `unknown query parameter`) {
		t.Fatalf("a misspelt filter must be refused by name: %s", text)
	}
	text, isErr = toolCall(t, srv.URL, "notes_list", map[string]any{"status": "bogus"})
	if !isErr || !strings.Contains(text, `validation_failed`) || !strings.Contains(text, `"field": "status"`) {
		t.Fatalf("the endpoint's validation must come back: %s", text)
	}
	text, isErr = toolCall(t, srv.URL, "notes_create", map[string]any{"title": "second", "idempotency_key": "k1"})
	if isErr || !strings.Contains(text, `"id": "n2"`) {
		t.Fatalf("create: %s", text)
	}
	text, isErr = toolCall(t, srv.URL, "notes_create", map[string]any{"title": "dry", "dry_run": true})
	if isErr || strings.Contains(text, `"id"`) {
		t.Fatalf("query argument on a write: %s", text)
	}
	text, isErr = toolCall(t, srv.URL, "notes_delete", map[string]any{"id": "n2"})
	if isErr || text != "{\n  \"status\": 204\n}" {
		t.Fatalf("delete: %q", text)
	}
	text, isErr = toolCall(t, srv.URL, "notes_get", map[string]any{"id": "n2"})
	if !isErr || !strings.Contains(text, `"not_found"`) {
		t.Fatalf("deleted note: %s", text)
	}
}
