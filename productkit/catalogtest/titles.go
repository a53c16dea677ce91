package catalogtest

import (
	"encoding/json"
	"testing"

	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/productkit"
)

// ToolTitles checks that titles (the product's productkit.Approvals
// ToolTitles) name, in both of the pages' languages, every destructive
// tool of the spec's catalog and nothing else: the approval page shows a
// tool by that title, and the catalog's own title is English, written for
// models.
func ToolTitles(t *testing.T, spec *productkit.Spec, titles map[string]pagetext.Phrase) {
	t.Helper()
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				DestructiveHint *bool `json:"destructiveHint"`
				ReadOnlyHint    *bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(List(t, spec, "tools/list")), &list); err != nil {
		t.Fatal(err)
	}
	destructive := map[string]bool{}
	for _, tool := range list.Tools {
		a := tool.Annotations
		// The spec's default: not read-only and no destructiveHint is
		// destructive (mcp.Tool.IsDestructive).
		if (a.DestructiveHint != nil && *a.DestructiveHint) || (a.DestructiveHint == nil && (a.ReadOnlyHint == nil || !*a.ReadOnlyHint)) {
			destructive[tool.Name] = true
			if ph := titles[tool.Name]; ph.PT == "" || ph.EN == "" {
				t.Errorf("destructive tool %s has no approval page title in both languages: %+v", tool.Name, ph)
			}
		}
	}
	for name := range titles {
		if !destructive[name] {
			t.Errorf("%s has an approval page title but is not a destructive tool of %s", name, spec.Key)
		}
	}
}
