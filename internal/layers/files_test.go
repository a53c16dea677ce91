package layers

import (
	"slices"
	"testing"
)

// The check sees a circle of files, and only the files in it: in the
// fixture a.go and b.go use each other, c.go is used by both and uses
// a.go's type, so all three are one circle.
func TestFileCyclesSeesACircle(t *testing.T) {
	t.Parallel()
	got, err := FileCycles(".", "./testdata/cyclic")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"github.com/kobana/kobana-mcp/internal/layers/testdata/cyclic: a.go ↔ b.go ↔ c.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("FileCycles = %q, want %q", got, want)
	}
}

// Every product package reads bottom up, file by file (issue 24): a new
// file that tangles others fails here, naming the circle.
func TestProductPackagesHaveNoFileCycles(t *testing.T) {
	t.Parallel()
	got, err := FileCycles("../..", "./inbox/...", "./dunning/...", "./kadu/...")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		t.Errorf("files in a circle: %s", c)
	}
}
