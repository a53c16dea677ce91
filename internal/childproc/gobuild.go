package childproc

import (
	"os/exec"
	"path/filepath"
	"runtime"
)

// GoBuild is `go build -trimpath ARGS…`, for tests that build one of the
// module's binaries to run it as a real process.
//
// -trimpath because scripts/test.sh builds the module once with it (its
// `go vet`), and so do the steps after the tests and the README
// walkthroughs the tests run (each in a view of the repository of its own,
// where a build without -trimpath would key every package by that view's
// directory and compile the module again): one flavour of plain build, so
// every test's build finds the packages compiled (docs/decisions.md
// "One build per kind").
func GoBuild(args ...string) *exec.Cmd {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	return exec.Command(goBin, append([]string{"build", "-trimpath"}, args...)...)
}
