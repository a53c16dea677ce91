// Package catalogtest pins a product's whole MCP surface — tools/list with
// every schema and annotation, resources, templates and prompts — to JSON
// snapshots checked in beside the product, built from its spec alone (no
// database: declarations need no connection), so any change to a tool's
// surface shows in review as a diff of testdata/golden: one file per tool
// under tools/ (with tools/index.json pinning their order), one file for
// each other list.
package catalogtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// Files names each list's snapshot in the golden directory; tools/list
// has a folder of them instead (ToolsDir).
var Files = map[string]string{
	"resources/list":           "resources.json",
	"resources/templates/list": "resource_templates.json",
	"prompts/list":             "prompts.json",
}

// List is one list method's result from the spec's catalog, as a 2026-07-28
// client reads it, indented two spaces; "" when the product serves no such
// list (-32601).
func List(t testing.TB, spec *productkit.Spec, method string) string {
	t.Helper()
	l, err := productkit.Catalog(spec)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "catalogtest", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}}})
	r := httptest.NewRequest(http.MethodPost, productkit.MCPPath, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", method)
	w := httptest.NewRecorder()
	l.Handler.ServeHTTP(w, r)
	var doc struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatalf("%s: %v: %s", method, err, w.Body)
	}
	if doc.Error != nil && doc.Error.Code == -32601 {
		return ""
	}
	if doc.Result == nil {
		t.Fatalf("%s: %s", method, w.Body)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, doc.Result, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	return pretty.String()
}

// Golden compares every list of the spec's catalog with its snapshot in
// dir, or rewrites the snapshots when update is set. A product that
// serves no such list has no snapshot of it. Each tool is compared on its
// own, and a failure names it. It also checks the spec's scope
// descriptions (ScopeDescriptions).
func Golden(t *testing.T, spec *productkit.Spec, dir string, update bool) {
	t.Helper()
	ScopeDescriptions(t, spec)
	goldenTools(t, dir, List(t, spec, "tools/list"), update)
	for _, method := range []string{"resources/list", "resources/templates/list", "prompts/list"} {
		got := List(t, spec, method)
		name := filepath.Join(dir, Files[method])
		if update {
			if got == "" {
				_ = os.Remove(name)
				continue
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(name)
		if got == "" && os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v (run with -update to create it)", method, err)
		}
		if string(want) != got {
			t.Errorf("%s differs from %s (run the test with -update to accept):\n%s", method, name, firstDiff(string(want), got))
		}
	}
}

// firstDiff shows where two texts part, with a little context.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-200)
	return "want …" + want[lo:min(len(want), i+200)] + "\n got …" + got[lo:min(len(got), i+200)]
}
