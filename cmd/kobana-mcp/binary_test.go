package main

import (
	"github.com/kobana/kobana-mcp/internal/childproc"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// built is the kobana-mcp binary the process tests run, built once per
// test binary: the tests that start it run in parallel, and each building
// its own copy cost a link of the whole program apiece.
var built struct {
	once sync.Once
	dir  string // removed by TestMain after the tests
	bin  string
	err  error
	out  []byte
}

// buildBinary builds kobana-mcp into a temporary directory on the first
// call and answers the same path to every later one. The tests only run
// it; none writes to it.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "kobana-mcp-test-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "kobana-mcp")
		built.out, built.err = childproc.GoBuild("-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// removeBuiltBinary deletes what buildBinary built, if it ran.
func removeBuiltBinary() {
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}
