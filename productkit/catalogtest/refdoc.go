package catalogtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/refdoc"
)

// ReferenceDoc compares the product's checked-in tool reference at path
// (docs/tools/<key>.md) with the one its declarations produce, or
// rewrites it when update is set. Either way each tool's entry must name
// its handler in a file of the repository (two folders above path's)
// that declares it.
func ReferenceDoc(t *testing.T, spec *productkit.Spec, path string, update bool) {
	t.Helper()
	var b bytes.Buffer
	if err := refdoc.Write(&b, spec); err != nil {
		t.Fatal(err)
	}
	l, err := productkit.Catalog(spec)
	if err != nil {
		t.Fatal(err)
	}
	handlerEntries(t, b.Bytes(), len(l.Catalog.Tools), filepath.Dir(filepath.Dir(filepath.Dir(path))))
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run the test with -update to create it)", path, err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		t.Errorf("%s is out of date with the declarations (run the test with -update):\n%s", path, firstDiff(string(want), b.String()))
	}
}
