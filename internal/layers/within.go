package layers

import (
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
)

// CheckWithin returns every import inside the product rooted at root (an
// import path) that breaks the product's own floors, each as "a imports
// b: why", sorted. order names the product's layers bottom up, as
// sub-packages of root (Dunning: ledger, collection, notify, files,
// escalation, regua); root itself sits above them all. A layer may import
// the layers below it, never one above or root. A sub-package that is not
// a layer (a foundation such as dunning/latefee) sits below every layer:
// it may import other foundations, never a layer or root. Test variants
// count as their package, except external test packages (package x_test),
// which may drive their package through the layers above.
func CheckWithin(graph map[string][]string, root string, order []string) []string {
	rank := func(pkg string) (int, bool) {
		if pkg == root {
			return len(order), true
		}
		rest, ok := strings.CutPrefix(pkg, root+"/")
		if !ok {
			return 0, false
		}
		first, _, _ := strings.Cut(rest, "/")
		if i := slices.Index(order, first); i >= 0 {
			return i, true
		}
		return -1, true // a foundation
	}
	name := func(i int) string {
		switch {
		case i == len(order):
			return "the product's root"
		case i < 0:
			return "a foundation"
		}
		return "layer " + order[i]
	}
	var out []string
	for pkg, imports := range graph {
		if strings.HasSuffix(pkg, "_test") {
			continue
		}
		from, ok := rank(pkg)
		if !ok {
			continue
		}
		for _, imp := range imports {
			to, ok := rank(imp)
			if !ok || imp == pkg {
				continue
			}
			// Up a layer, or from a foundation into any layer (a foundation
			// ranks -1, below them all; two packages of one rank may meet).
			if to > from {
				short := func(p string) string { return strings.TrimPrefix(p, Module+"/") }
				out = append(out, fmt.Sprintf("%s imports %s: %s is above %s", short(pkg), short(imp), name(to), name(from)))
			}
		}
	}
	sort.Strings(out)
	return out
}

// Graph is the module's package graph (package → its imports), test
// variants merged into their package, read with go list from dir (any
// folder inside the module).
func Graph(dir string) (map[string][]string, error) {
	cmd := exec.Command("go", "list", "-test", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", Module+"/...")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
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
	return graph, nil
}
