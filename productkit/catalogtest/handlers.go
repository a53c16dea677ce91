package catalogtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// closurePart is one part of a runtime name that is a closure's: "func3",
// or "2" for a closure inside a closure.
var closurePart = regexp.MustCompile(`^(func)?[0-9]+$`)

// handlerLine is how the reference names a tool's handler (refdoc).
var handlerLine = regexp.MustCompile("(?m)^Handler: `([^`]+)` in \\[`([^`]+)`\\]\\(\\.\\./\\.\\./([^)]+)\\)\\.$")

// handlerEntries checks that the reference doc names, for each of its
// tools, a handler file that exists under root (the repository) and
// declares the function, a named one (a closure "outer.funcN" is refused),
// a method "(*T).m" with receiver T. It reads the
// source with go/parser, not the runtime the reference was built from.
func handlerEntries(t testing.TB, doc []byte, tools int, root string) {
	t.Helper()
	entries := handlerLine.FindAllSubmatch(doc, -1)
	if len(entries) != tools {
		t.Errorf("the reference names %d handlers for %d tools", len(entries), tools)
	}
	for _, e := range entries {
		fn, file, link := string(e[1]), string(e[2]), string(e[3])
		if link != file {
			t.Errorf("handler %s: the link %s is not the file %s", fn, link, file)
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, filepath.FromSlash(file)), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("handler %s: %v", fn, err)
			continue
		}
		if anonymous(fn) {
			t.Errorf("handler %s in %s is an anonymous function: an operation's handler is a named function or method, so its name leads to its code (docs/decisions.md \"Tests and goldens\")", fn, file)
			continue
		}
		found := false
		var tried []string
		for _, c := range declaredNames(fn) {
			found = found || declaresFunc(f, c.recv, c.name)
			tried = append(tried, c.String())
		}
		if !found {
			t.Errorf("handler %s: %s declares no %s", fn, file, strings.Join(tried, " or "))
		}
	}
}

// anonymous reports whether a runtime name is a closure's ("outer.func3",
// "outer.func3.1").
func anonymous(fn string) bool {
	for _, part := range strings.Split(strings.ReplaceAll(fn, "[...]", ""), ".") {
		if closurePart.MatchString(part) {
			return true
		}
	}
	return false
}

// candidate is a declared function a runtime name may stand for: its
// receiver type ("" for a function) and its name.
type candidate struct{ recv, name string }

func (c candidate) String() string {
	if c.recv == "" {
		return "function " + c.name
	}
	return "method " + c.recv + "." + c.name
}

// declaredNames are the declared functions a runtime name may be, or a
// closure in it may be inside: "(*service).registerDebtors.func3" is
// service's registerDebtors. "a.b" is a method b of a value receiver a,
// or a function b inlined into a (its closures are named so): both are
// candidates.
func declaredNames(fn string) []candidate {
	parts := strings.Split(strings.ReplaceAll(fn, "[...]", ""), ".")
	for len(parts) > 1 && closurePart.MatchString(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	name := parts[len(parts)-1]
	if len(parts) == 1 {
		return []candidate{{"", name}}
	}
	prev := parts[len(parts)-2]
	out := []candidate{{strings.Trim(prev, "(*)"), name}}
	if !strings.HasPrefix(prev, "(") {
		out = append(out, candidate{"", name})
	}
	return out
}

func declaresFunc(f *ast.File, recv, name string) bool {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || (fd.Recv == nil) != (recv == "") {
			continue
		}
		if recv == "" {
			return true
		}
		typ := fd.Recv.List[0].Type
		for {
			switch x := typ.(type) {
			case *ast.StarExpr:
				typ = x.X
				continue
			case *ast.IndexExpr:
				typ = x.X
				continue
			case *ast.IndexListExpr:
				typ = x.X
				continue
			}
			break
		}
		if id, ok := typ.(*ast.Ident); ok && id.Name == recv {
			return true
		}
	}
	return false
}
