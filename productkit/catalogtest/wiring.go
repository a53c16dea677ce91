package catalogtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// HiddenWiring parses the package's non-test files in dir and reports
// each init function, each package variable of a function type or set
// to a function literal, and each function literal handed to rest.Handle,
// rest.HandleConfirmed or rest.HandleRaw. A product
// assembled only where its Spec builds it has none: its operations read from
// their declaration to their store without a closure in between
// (docs/decisions.md, "Product code layout"). Products import no other
// product, even in tests, so the check lives here.
func HiddenWiring(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var bad []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					bad = append(bad, fset.Position(d.Pos()).String()+": an init function")
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, sp := range d.Specs {
					vs := sp.(*ast.ValueSpec)
					_, funcType := vs.Type.(*ast.FuncType)
					for _, v := range vs.Values {
						if _, ok := v.(*ast.FuncLit); ok {
							funcType = true
						}
					}
					if funcType {
						bad = append(bad, fset.Position(vs.Pos()).String()+": package variable "+vs.Names[0].Name+" holds a function")
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "rest" || !strings.HasPrefix(sel.Sel.Name, "Handle") {
				return true
			}
			for _, a := range call.Args {
				if _, ok := a.(*ast.FuncLit); ok {
					bad = append(bad, fset.Position(a.Pos()).String()+": an anonymous handler given to rest."+sel.Sel.Name)
				}
			}
			return true
		})
	}
	return bad
}
