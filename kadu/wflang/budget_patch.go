package wflang

import (
	"reflect"
	"strings"

	"github.com/expr-lang/expr/ast"
)

// The rewrite that puts every growing operation under the evaluation's
// meter (budget.go). It runs on the checked tree when an expression is
// compiled, after guard has refused the names a tenant may not write.

// guard refuses the reserved names ($env, which would reach the meter,
// and the budgeted functions' __wf… names) and notes whether the
// expression reads the run (input, steps, item, index): one that does not
// gives the same value every time, so Validate evaluates it at save.
type guard struct {
	reserved string
	readsRun bool
}

func (g *guard) Visit(node *ast.Node) {
	id, ok := (*node).(*ast.IdentifierNode)
	if !ok {
		return
	}
	switch {
	case id.Value == "$env" || strings.HasPrefix(id.Value, reservedPrefix):
		if g.reserved == "" {
			g.reserved = id.Value
		}
	case id.Value == "input" || id.Value == "steps" || id.Value == "item" || id.Value == "index":
		g.readsRun = true
	}
}

// budgetPatch rewrites, in the checked tree:
//   - a + b, unless both sides are known numbers, into __wf_add(meter, a, b);
//   - a == b and a != b, unless one side is a known scalar, into
//     __wf_eq / __wf_ne (a deep comparison walks both values);
//   - a in b, unless b is a known map, into __wf_in;
//   - the left side of contains, startsWith, endsWith and matches into
//     __wf_scan(meter, a), which charges its length;
//   - the list a loop builtin (map, filter, reduce…) loops over into
//     __wf_iter(meter, list), which charges its length;
//   - each budgeted builtin (budgetedBuiltin) into __wf_<name>(meter, …).
type budgetPatch struct{}

func (budgetPatch) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		switch n.Operator {
		case "+":
			if numeric(n.Left) && numeric(n.Right) {
				return
			}
			ast.Patch(node, metered(fnAdd, n.Left, n.Right))
		case "==", "!=":
			if scalar(n.Left) || scalar(n.Right) {
				return
			}
			name := fnEqual
			if n.Operator == "!=" {
				name = fnNotEqual
			}
			ast.Patch(node, metered(name, n.Left, n.Right))
		case "in":
			if t := n.Right.Type(); t != nil && (t.Kind() == reflect.Map || t.Kind() == reflect.Struct) {
				return
			}
			ast.Patch(node, metered(fnIn, n.Left, n.Right))
		case "contains", "startsWith", "endsWith", "matches":
			n.Left = metered(fnScan, n.Left)
		}
	case *ast.BuiltinNode:
		switch {
		case loopBuiltin(n.Name) && len(n.Arguments) > 0:
			n.Arguments[0] = metered(iterFor(n.Arguments[0]), n.Arguments[0])
		case budgetedBuiltin(n.Name):
			ast.Patch(node, metered(reservedPrefix+"_"+n.Name, n.Arguments...))
		}
	}
}

// metered is a call of a budgeted function with the meter first.
func metered(fn string, args ...ast.Node) *ast.CallNode {
	call := &ast.CallNode{
		Callee:    &ast.IdentifierNode{Value: fn},
		Arguments: append([]ast.Node{&ast.IdentifierNode{Value: meterName}}, args...),
	}
	if len(args) > 0 {
		call.SetLocation(args[0].Location())
	}
	return call
}

// iterFor picks the loop meter that keeps the list's element type, so
// # is typed in the predicate as it was.
func iterFor(list ast.Node) string {
	t := list.Type()
	if t == nil || (t.Kind() != reflect.Slice && t.Kind() != reflect.Array) {
		return fnIter
	}
	switch t.Elem().Kind() {
	case reflect.Int:
		return fnIter + "_ints"
	case reflect.Float64:
		return fnIter + "_floats"
	case reflect.String:
		return fnIter + "_strings"
	case reflect.Interface:
		return fnIter + "_anys"
	}
	return fnIter
}

func numeric(n ast.Node) bool {
	t := n.Type()
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func scalar(n ast.Node) bool {
	if _, ok := n.(*ast.NilNode); ok {
		return true
	}
	if numeric(n) {
		return true
	}
	t := n.Type()
	return t != nil && (t.Kind() == reflect.String || t.Kind() == reflect.Bool)
}
