package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/rest"
)

type archiveIn struct {
	ID string `json:"id" in:"path"`
}

// archivingAPI adds notes_archive, a destructive operation declared with
// HandleConfirmed, to the notes API.
func (n *notes) archivingAPI(archived *[]string) *rest.API {
	a := n.api()
	rest.HandleConfirmed(a, rest.Operation{ID: "notes_archive", Method: "POST", Path: "/notes/{id}/archive", Title: "Archive a note", Summary: "Archives a note.",
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}},
		func(ctx context.Context, in *archiveIn) (string, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			title, ok := n.items[in.ID]
			if !ok {
				return "", rest.NotFound("note")
			}
			return fmt.Sprintf("Archive note '%s' (%s)? This cannot be undone.", title, in.ID), nil
		},
		func(ctx context.Context, in *archiveIn) (*rest.Response, error) {
			if mcp.ConfirmationFrom(ctx) == nil {
				return nil, fmt.Errorf("ran without a confirmation")
			}
			*archived = append(*archived, in.ID)
			return rest.OK(map[string]any{"archived": in.ID}), nil
		})
	return a
}

func confirmPost(t *testing.T, url, tool string, args map[string]any, state, responses string) map[string]any {
	t.Helper()
	params := map[string]any{"name": tool, "arguments": args,
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
	if state != "" {
		params["requestState"] = state
		params["inputResponses"] = json.RawMessage(responses)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req, _ := http.NewRequest("POST", url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	res, _ := out["result"].(map[string]any)
	if res == nil {
		t.Fatalf("%s: %v", tool, out)
	}
	return res
}

func formMessage(res map[string]any) string {
	reqs, _ := res["inputRequests"].(map[string]any)
	c, _ := reqs["confirm"].(map[string]any)
	p, _ := c["params"].(map[string]any)
	m, _ := p["message"].(string)
	return m
}

// A destructive operation declared with HandleConfirmed describes the call
// itself, through the same route in-process, without running it.
func TestConfirmedOperationDescribesItself(t *testing.T) {
	t.Parallel()
	n := &notes{items: map[string]string{"n1": "first"}}
	var archived []string
	api := n.archivingAPI(&archived)
	h := mcp.MustNewHandler(mcp.Options{Name: "notes", Version: "1"}, mcp.Catalog{Tools: api.Tools(restbridge.New(api, restbridge.Options{}))})
	srv := httptest.NewServer(h)
	defer srv.Close()

	res := confirmPost(t, srv.URL, "notes_archive", map[string]any{"id": "n1"}, "", "")
	if res["resultType"] != "input_required" || formMessage(res) != "Archive note 'first' (n1)? This cannot be undone." {
		t.Fatalf("first call: %v", res)
	}
	if len(archived) != 0 {
		t.Fatalf("the describing request ran the operation: %v", archived)
	}
	done := confirmPost(t, srv.URL, "notes_archive", map[string]any{"id": "n1"}, res["requestState"].(string), `{"confirm":{"action":"accept","content":{"confirm":true}}}`)
	if done["isError"] == true || len(archived) != 1 {
		t.Fatalf("accept: %v (archived %v)", done, archived)
	}

	// A target that is not there: the operation's own 404, nothing asked.
	missing := confirmPost(t, srv.URL, "notes_archive", map[string]any{"id": "nope"}, "", "")
	if missing["isError"] != true || missing["requestState"] != nil || !strings.Contains(fmt.Sprint(missing["content"]), "not_found") {
		t.Fatalf("missing target: %v", missing)
	}

	// A destructive operation declared with plain Handle gets the generic
	// message, and its route refuses describing requests rather than run.
	plain := confirmPost(t, srv.URL, "notes_delete", map[string]any{"id": "n1"}, "", "")
	if !strings.HasPrefix(formMessage(plain), `Run "Delete a note" (notes_delete) with arguments {"id":"n1"}?`) {
		t.Fatalf("plain destructive operation: %v", plain)
	}
	bridge := restbridge.New(api, restbridge.Options{})
	for _, route := range []restbridge.Route{{Method: "DELETE", Path: "/api/v1/notes/{id}"}, {Method: "GET", Path: "/api/v1/notes/{id}/raw"}} {
		describe := bridge.MustDescriber(route)
		msg, answer, err := describe(context.Background(), &mcp.CallToolRequest{Name: "x", Arguments: json.RawMessage(`{"id":"n1"}`)})
		if err != nil || msg != "" || answer == nil || !answer.IsError {
			t.Errorf("%s %s: describing an operation that cannot describe: %q %v %v", route.Method, route.Path, msg, answer, err)
		}
	}
	if _, ok := n.items["n1"]; !ok {
		t.Fatal("a describing request deleted the note")
	}
}
