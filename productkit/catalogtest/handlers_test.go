package catalogtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entry is a reference's handler line.
func entry(fn, file string) string {
	return "Handler: `" + fn + "` in [`" + file + "`](../../" + file + ").\n"
}

func TestHandlerEntriesFindTheFunctionInTheFile(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package p\n\ntype service struct{}\n\ntype box[T any] struct{}\n\nfunc (s *service) registerX() {}\n\nfunc (b box[T]) get() {}\n\nfunc declare[T any]() {}\n\nfunc plain() {}\n"
	if err := os.WriteFile(filepath.Join(root, "p", "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	good := []string{"(*service).registerX", "box[...].get", "plain"}
	for _, fn := range good {
		if errs := runEntries(t, entry(fn, "p/x.go"), 1, root); len(errs) > 0 {
			t.Errorf("%s: %q", fn, errs)
		}
	}
	bad := map[string]string{
		entry("(*other).registerX", "p/x.go"):                              "declares no method other.registerX",
		entry("registerX", "p/x.go"):                                       "declares no function registerX",
		entry("(*service).registerX.func3", "p/x.go"):                      "is an anonymous function",
		entry("(*service).registerX.func3.1", "p/x.go"):                    "is an anonymous function",
		entry("declare[...].func2", "p/x.go"):                              "is an anonymous function",
		entry("plain.func1", "p/x.go"):                                     "is an anonymous function",
		entry("(*service).plain", "p/x.go"):                                "declares no method service.plain",
		entry("missing", "p/x.go"):                                         "declares no function missing",
		entry("plain", "p/gone.go"):                                        "gone.go",
		"Handler: `plain` in [`p/x.go`](../../p/y.go).\n":                  "is not the file",
		entry("plain", "p/x.go") + entry("(*service).registerX", "p/x.go"): "2 handlers for 1 tools",
	}
	for doc, want := range bad {
		errs := runEntries(t, doc, 1, root)
		if len(errs) != 1 || !strings.Contains(errs[0], want) {
			t.Errorf("%q: reports %q, want one with %q", doc, errs, want)
		}
	}
}

func runEntries(t *testing.T, doc string, tools int, root string) []string {
	r := &recorder{TB: t}
	handlerEntries(r, []byte(doc), tools, root)
	return r.errors
}
