package inbox

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

var updateGolden = flag.Bool("update", false, "rewrite the Inbox's golden catalog snapshots")

// TestCatalogGolden pins the Inbox's whole MCP surface — tools/list with
// every schema and annotation, resources, templates and prompts — to
// snapshots checked in beside the code, so any change to a tool's surface
// shows in review as a diff of testdata/golden/*.json. Run with -update to
// accept a change on purpose.
func TestCatalogGolden(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		for _, method := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
			raw := e.RPC(e.Owner, method, nil)
			var doc struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal([]byte(raw), &doc); err != nil || doc.Result == nil {
				t.Fatalf("%s: %s", method, raw)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, doc.Result, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			name := filepath.Join("testdata", "golden", goldenFiles[method])
			if *updateGolden && db.Dialect() == store.SQLite {
				if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(name)
			if err != nil {
				t.Fatalf("%s: %v (run with -update to create it)", method, err)
			}
			if !bytes.Equal(want, pretty.Bytes()) {
				t.Errorf("%s differs from %s (run go test ./inbox -run TestCatalogGolden -update to accept):\n%s", method, name, firstDiff(string(want), pretty.String()))
			}
		}
	})
}

// goldenFiles names each list's snapshot.
var goldenFiles = map[string]string{
	"tools/list":               "tools.json",
	"resources/list":           "resources.json",
	"resources/templates/list": "resource_templates.json",
	"prompts/list":             "prompts.json",
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
