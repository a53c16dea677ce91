package refdoc

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
)

// handler is where a tool's code lives, as the reference names it: the
// Go source file, relative to the repository root, and the function as
// the Go runtime names it without its package path — a closure reads
// "(*service).registerDebtors.func3", inside the function that declares
// it. No line number: lines move with every edit, names do not.
type handler struct {
	File string
	Func string
}

// handlerOf finds, by reflection, where impl (a tool's handler, as
// rest.API.Implementation gives it) is written.
func handlerOf(impl any) (handler, error) {
	v := reflect.ValueOf(impl)
	if impl == nil || v.Kind() != reflect.Func || v.IsNil() {
		return handler{}, errors.New("refdoc: the operation has no handler")
	}
	pc := v.Pointer()
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return handler{}, errors.New("refdoc: the handler's code is not known to the runtime")
	}
	pkg, local := splitFuncName(fn.Name())
	h := handler{Func: strings.TrimSuffix(local, "-fm")}
	root, module := repository()
	file, _ := fn.FileLine(fn.Entry())
	if strings.HasSuffix(local, "-fm") || !strings.HasPrefix(file, root+"/") {
		// A method value (s.list) runs a wrapper the compiler writes, with
		// no file of its own: read the package's files for the method.
		if pkg != module && !strings.HasPrefix(pkg, module+"/") {
			return handler{}, fmt.Errorf("refdoc: handler %s is outside module %s", fn.Name(), module)
		}
		dir := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		found, err := findDecl(filepath.Join(root, filepath.FromSlash(dir)), h.Func)
		if err != nil {
			return handler{}, fmt.Errorf("refdoc: handler %s: %w", fn.Name(), err)
		}
		h.File = path.Join(dir, found)
		return h, nil
	}
	h.File = filepath.ToSlash(strings.TrimPrefix(file, root+"/"))
	return h, nil
}

// splitFuncName cuts a runtime function name at its package path:
// "example.com/m/p.(*T).m.func1" is "example.com/m/p" and "(*T).m.func1"
// (the runtime escapes dots in the path's last element).
func splitFuncName(name string) (pkg, local string) {
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return "", name
	}
	return name[:slash+1+dot], name[slash+1+dot+1:]
}

// repository is the repository root and the module path, read from this
// file's own place: it sits at productkit/refdoc in both.
func repository() (root, module string) {
	const here = "productkit/refdoc"
	_, file, _, _ := runtime.Caller(0)
	root = strings.TrimSuffix(filepath.ToSlash(filepath.Dir(file)), "/"+here)
	pkg, _ := splitFuncName(runtime.FuncForPC(reflect.ValueOf(repository).Pointer()).Name())
	return root, strings.TrimSuffix(pkg, "/"+here)
}

// outer are the functions or methods declared in the source that local
// (a handler.Func) may be or be inside, as receiver type ("" for a
// function) and name: "(*service).registerDebtors.func3" is service's
// registerDebtors, "declare[...].func2" the function declare. "a.b" is a
// method b of a value receiver a, or a function b whose closures were
// inlined into a: both are tried.
func outer(local string) ([][2]string, error) {
	parts := strings.Split(strings.ReplaceAll(local, "[...]", ""), ".")
	for len(parts) > 1 && isClosure(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	name := parts[len(parts)-1]
	if name == "" || strings.HasPrefix(name, "(") {
		return nil, fmt.Errorf("refdoc: %q names no declared function", local)
	}
	if len(parts) == 1 {
		return [][2]string{{"", name}}, nil
	}
	prev := parts[len(parts)-2]
	out := [][2]string{{strings.Trim(prev, "(*)"), name}}
	if !strings.HasPrefix(prev, "(") {
		out = append(out, [2]string{"", name})
	}
	return out, nil
}

// isClosure reports whether one part of a runtime name is a closure's
// ("func3", or "2" for a closure inside a closure).
func isClosure(p string) bool {
	digits := strings.TrimPrefix(p, "func")
	if digits == "" {
		return false
	}
	return strings.Trim(digits, "0123456789") == ""
}

// findDecl is the file in dir that declares the function local is or is
// inside.
func findDecl(dir, local string) (string, error) {
	candidates, err := outer(local)
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		for _, c := range candidates {
			ok, err := declares(filepath.Join(dir, e.Name()), c[0], c[1])
			if err != nil {
				return "", err
			}
			if ok {
				return e.Name(), nil
			}
		}
	}
	return "", fmt.Errorf("no file of %s declares %s", dir, local)
}

// declares reports whether the Go file at path declares the function
// name, as a method of recv when recv is not "".
func declares(path, recv, name string) (bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return false, err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name {
			continue
		}
		if recv == "" && fd.Recv == nil {
			return true, nil
		}
		if recv != "" && fd.Recv != nil && len(fd.Recv.List) == 1 && typeName(fd.Recv.List[0].Type) == recv {
			return true, nil
		}
	}
	return false, nil
}

// typeName is a receiver's type name: T for T, *T, T[P] and *T[P].
func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	case *ast.ParenExpr:
		return typeName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}
