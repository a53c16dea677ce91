package layers

import (
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// FileCycles returns, for every package the patterns name (loaded from
// dir, without their tests), each group of two or more of its files that
// use one another's declarations in a circle, as "pkg: a.go ↔ b.go ↔ …".
// A file uses another when it names a package-level declaration, a
// method or a field declared there. A package whose files can be read
// bottom up — each file using only files before it — has none: the
// products keep it so (docs/decisions.md "Dunning in layers"), and a
// circle is how a new file quietly tangles the ones it joins.
func FileCycles(dir string, patterns ...string) ([]string, error) {
	// The imports' types come from their export data, which go list compiles: with
	// -trimpath, as scripts/test.sh's vet and every server a test builds compile the
	// module (the caller's own GOFLAGS kept after it), so it is found in the build
	// cache instead of compiled a third time
	// (docs/decisions.md "Export data from vet's build").
	cfg := &packages.Config{
		Dir:  dir,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Env:  append(os.Environ(), "GOFLAGS=-trimpath "+os.Getenv("GOFLAGS")),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
		}
		for _, group := range fileCircles(p) {
			out = append(out, p.PkgPath+": "+strings.Join(group, " ↔ "))
		}
	}
	sort.Strings(out)
	return out, nil
}

// fileCircles is the strongly connected groups of more than one file of
// p's use graph (Tarjan's algorithm), each sorted by file name.
func fileCircles(p *packages.Package) [][]string {
	uses := map[string]map[string]bool{}
	for _, f := range p.Syntax {
		uses[p.Fset.Position(f.Pos()).Filename] = map[string]bool{}
	}
	for id, obj := range p.TypesInfo.Uses {
		if obj == nil || obj.Pkg() != p.Types {
			continue
		}
		if _, ok := obj.(*types.PkgName); ok {
			continue
		}
		if obj.Parent() != nil && obj.Parent() != p.Types.Scope() {
			continue // a local name
		}
		from, to := p.Fset.Position(id.Pos()).Filename, p.Fset.Position(obj.Pos()).Filename
		if _, ok := uses[to]; ok && from != to && uses[from] != nil {
			uses[from][to] = true
		}
	}
	files := make([]string, 0, len(uses))
	for f := range uses {
		files = append(files, f)
	}
	sort.Strings(files)
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var groups [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for w := range uses[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var group []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			group = append(group, filepath.Base(w))
			if w == v {
				break
			}
		}
		if len(group) > 1 {
			sort.Strings(group)
			groups = append(groups, group)
		}
	}
	for _, f := range files {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	return groups
}
