package layers

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportRules checks the real package graph of the module (go list)
// against the floors: a new import that points the wrong way fails here.
func TestImportRules(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-test", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", Module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		// go list -test names test variants "pkg [pkg.test]" and the test
		// main "pkg.test": both are the package's own imports.
		pkg := fields[0]
		if strings.HasSuffix(pkg, ".test") {
			continue // the generated test main
		}
		var imports []string
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "[") {
				continue
			}
			imports = append(imports, f)
		}
		graph[pkg] = append(graph[pkg], imports...)
	}
	if len(graph) < 20 {
		t.Fatalf("go list found only %d packages: %s", len(graph), out)
	}
	for _, v := range Check(graph) {
		t.Error(v)
	}
}

// TestCheckRefusesEachKindOfViolation: each rule, broken once, is named.
func TestCheckRefusesEachKindOfViolation(t *testing.T) {
	t.Parallel()
	m := func(p string) string { return Module + "/" + p }
	cases := []struct {
		from, to, want string
	}{
		{"mcp", "platform/identity", "mcp knows nothing"},
		{"mcp/restbridge", "rest", "mcp knows nothing"},
		{"inbox", "dunning", "never imports another product"},
		{"kadu/runtime", "inbox/extract", "never imports another product"},
		{"platform/httpx", "productkit", "productkit is a floor above platform"},
		{"platform/webhooks", "oauth/server", "oauth is a floor above platform"},
		{"platform/jobs", "inbox", "inbox is a floor above platform"},
		{"oauth", "productkit/approval", "productkit is a floor above oauth"},
		{"productkit", "kadu", "kadu is a floor above productkit"},
		{"rest", "platform/store", "platform is a floor above rest"},
		{"mcp_test", "rest", "mcp knows nothing"},
		{"inbox_test", "kadu", "never imports another product"},
	}
	for _, c := range cases {
		got := Check(map[string][]string{m(c.from): {m(c.to)}})
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s → %s: %v, want one violation saying %q", c.from, c.to, got, c.want)
		}
	}
	allowed := map[string][]string{
		m("mcp/restbridge"):    {m("mcp"), m("internal/jsonscan"), "net/http"},
		m("rest"):              {m("mcp"), m("mcp/restbridge")},
		m("platform/webhooks"): {m("platform/safehttp"), m("platform/jobs")},
		m("oauth/server"):      {m("platform/identity"), m("oauth")},
		m("productkit"):        {m("oauth/server"), m("rest"), m("platform/jobs")},
		m("inbox"):             {m("productkit"), m("platform/brazil"), m("inbox/extract")},
		m("cmd/kobana-mcp"):    {m("inbox"), m("dunning"), m("kadu")},
	}
	if got := Check(allowed); len(got) != 0 {
		t.Errorf("allowed imports refused: %v", got)
	}
}
