package catalogtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a check reports instead of
// failing the test running it.
type recorder struct {
	testing.TB
	errors []string
}

type fatal struct{}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

func (r *recorder) Fatal(args ...any) {
	r.Errorf("%s", fmt.Sprint(args...))
	panic(fatal{})
}

// run runs goldenTools against dir with a recorder and returns what it
// reported.
func run(t *testing.T, dir, got string, update bool) []string {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(fatal); !ok {
					panic(v)
				}
			}
		}()
		goldenTools(r, dir, got, update)
	}()
	return r.errors
}

// result is a tools/list result of the named tools, as List prints it;
// a name "x=v" gives tool x the description v.
func result(tools ...string) string {
	parts := make([]string, len(tools))
	for i, tl := range tools {
		name, desc, _ := strings.Cut(tl, "=")
		parts[i] = fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object"}}`, name, desc)
	}
	return indent([]byte(`{"resultType":"complete","tools":[` + strings.Join(parts, ",") + `],"ttlMs":0,"_meta":{"x":{"y":1}}}`))
}

func TestGoldenToolsUpdateWritesOneFilePerToolAndRemovesOrphans(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, ToolsDir)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, stale := range []string{filepath.Join(folder, "gone.json"), filepath.Join(dir, legacyTools)} {
		if err := os.WriteFile(stale, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if errs := run(t, dir, result("b=two", "a=one"), true); len(errs) > 0 {
		t.Fatal(errs)
	}
	var files []string
	entries, _ := os.ReadDir(folder)
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if !slices.Equal(files, []string{"a.json", "b.json", "index.json"}) {
		t.Fatalf("files %v", files)
	}
	if _, err := os.Stat(filepath.Join(dir, legacyTools)); !os.IsNotExist(err) {
		t.Errorf("%s was not removed: %v", legacyTools, err)
	}
	a, _ := os.ReadFile(filepath.Join(folder, "a.json"))
	if want := "{\n  \"name\": \"a\",\n  \"description\": \"one\",\n  \"inputSchema\": {\n    \"type\": \"object\"\n  }\n}\n"; string(a) != want {
		t.Errorf("a.json:\n%s\nwant\n%s", a, want)
	}
	idx, _ := os.ReadFile(filepath.Join(folder, ToolsIndex))
	if want := "{\n  \"resultType\": \"complete\",\n  \"tools\": [\n    \"b\",\n    \"a\"\n  ],\n  \"ttlMs\": 0,\n  \"_meta\": {\n    \"x\": {\n      \"y\": 1\n    }\n  }\n}\n"; string(idx) != want {
		t.Errorf("index.json:\n%s\nwant\n%s", idx, want)
	}
	if errs := run(t, dir, result("b=two", "a=one"), false); len(errs) > 0 {
		t.Errorf("the snapshot just written differs: %v", errs)
	}
}

func TestGoldenToolsNamesTheToolThatChanged(t *testing.T) {
	cases := []struct {
		name string
		got  string
		want []string // one substring per expected report, in order
	}{
		{"changed", result("b=two", "a=ONE"), []string{"tool a: differs"}},
		{"added", result("b=two", "a=one", "c=three"), []string{"tool c: added", "c is new"}},
		{"removed", result("a=one"), []string{"tool b: no longer listed", "b is no longer listed"}},
		{"reordered", result("a=one", "b=two"), []string{"the order of the tools"}},
		{"envelope", strings.Replace(result("b=two", "a=one"), `"ttlMs": 0`, `"ttlMs": 5`, 1), []string{"members around them"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if errs := run(t, dir, result("b=two", "a=one"), true); len(errs) > 0 {
				t.Fatal(errs)
			}
			errs := run(t, dir, c.got, false)
			if len(errs) != len(c.want) {
				t.Fatalf("reports %q, want %d", errs, len(c.want))
			}
			for i, w := range c.want {
				if !strings.Contains(errs[i], w) {
					t.Errorf("report %d %q lacks %q", i, errs[i], w)
				}
			}
		})
	}
}

func TestGoldenToolsRefusesTheOneFileSnapshot(t *testing.T) {
	dir := t.TempDir()
	if errs := run(t, dir, result("a=one"), true); len(errs) > 0 {
		t.Fatal(errs)
	}
	if err := os.WriteFile(filepath.Join(dir, legacyTools), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if errs := run(t, dir, result("a=one"), false); len(errs) != 1 || !strings.Contains(errs[0], "is replaced by") {
		t.Errorf("reports %q", errs)
	}
}

func TestGoldenToolsNoToolsNoFolder(t *testing.T) {
	dir := t.TempDir()
	if errs := run(t, dir, result("a=one"), true); len(errs) > 0 {
		t.Fatal(errs)
	}
	if errs := run(t, dir, "", false); len(errs) != 1 || !strings.Contains(errs[0], "lists no tools") {
		t.Errorf("reports %q", errs)
	}
	if errs := run(t, dir, "", true); len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ToolsDir)); !os.IsNotExist(err) {
		t.Errorf("%s remains: %v", ToolsDir, err)
	}
}

func TestSplitToolsRefusesNamesThatCannotNameAFile(t *testing.T) {
	for _, bad := range []string{"../x", "a/b", ""} {
		if _, _, _, err := splitTools(result(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, _, _, err := splitTools(result("a", "a")); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate: %v", err)
	}
}
