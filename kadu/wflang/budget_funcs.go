package wflang

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm/runtime"
)

// The budgeted functions the rewritten expression calls (budget_patch.go)
// in place of the operations that can grow. Each takes the evaluation's
// meter first, charges what it is about to allocate and do, and only then
// does what expr would have done (the builtins' own code, runtime.Add,
// runtime.Equal, runtime.In), so the language's meaning is unchanged.

// budgetedBuiltins are the builtins replaced by a budgeted call: the
// ones whose result can be larger than their input (repeat, join,
// replace, split, toJSON, string, flatten, concat), and the ones that
// copy or read all of their input (upper, fromJSON, sort, keys…).
func budgetedBuiltin(name string) bool {
	switch name {
	case "repeat", "join", "replace", "split", "splitAfter", "toJSON", "string", "flatten", "concat",
		"upper", "lower", "trim", "trimPrefix", "trimSuffix", "toBase64", "fromBase64", "fromJSON",
		"keys", "values", "toPairs", "fromPairs", "sort", "uniq", "reverse", "median", "mean", "max", "min":
		return true
	}
	return false
}

// loopBuiltin are the builtins that loop over their first argument (with
// a predicate or not): each charges one step per element before it
// starts.
func loopBuiltin(name string) bool {
	switch name {
	case "all", "none", "any", "one", "filter", "map", "find", "findIndex", "findLast", "findLastIndex",
		"count", "sum", "groupBy", "sortBy", "reduce":
		return true
	}
	return false
}

// preCharge charges what builtin name will allocate and do on args.
func preCharge(m *meter, name string, args []any) error {
	str := func(i int) string {
		if i < len(args) {
			if s, ok := args[i].(string); ok {
				return s
			}
		}
		return ""
	}
	scan := func(s string) int64 { return int64(len(s))/64 + 1 }
	switch name {
	case "repeat":
		s := str(0)
		n := int64(0)
		if len(args) > 1 {
			n = int64(runtime.ToInt(args[1]))
		}
		if n < 0 {
			return nil // the builtin refuses it
		}
		if mulOver(int64(len(s)), n, m.left()) {
			m.over = fmt.Sprintf("repeat of %d bytes %d times", len(s), n)
			return m.err()
		}
		b := int64(len(s)) * n
		return m.charge("repeat", b, b/64+1)
	case "join":
		glue := str(1)
		var total, n int64
		if len(args) > 0 {
			rv := reflect.ValueOf(args[0])
			if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
				n = int64(rv.Len())
				for i := 0; i < rv.Len(); i++ {
					e := rv.Index(i)
					if e.Kind() == reflect.Interface {
						e = e.Elem()
					}
					if e.Kind() == reflect.String {
						total += int64(e.Len())
					}
					if total > m.left() {
						break
					}
				}
			}
		}
		if n > 0 && mulOver(int64(len(glue)), n, m.left()) {
			m.over = "join"
			return m.err()
		}
		return m.charge("join", total+int64(len(glue))*n+16*n, n+total/64+1)
	case "replace":
		s, old, repl := str(0), str(1), str(2)
		count := int64(strings.Count(s, old))
		if len(args) == 4 {
			if k := int64(runtime.ToInt(args[3])); k >= 0 && k < count {
				count = k
			}
		}
		grow := int64(len(repl)) - int64(len(old))
		if grow < 0 {
			grow = 0
		}
		if mulOver(count, grow, m.left()) {
			m.over = "replace"
			return m.err()
		}
		return m.charge("replace", int64(len(s))+count*grow, scan(s)+count)
	case "split", "splitAfter":
		s := str(0)
		count := int64(strings.Count(s, str(1))) + 1
		return m.charge(name, 16*count, scan(s)+count)
	case "toJSON", "string", "flatten":
		var v any
		if len(args) > 0 {
			v = args[0]
		}
		sz, ok := sizeOf(v, m.left()/2, m.stepsLeft())
		if !ok {
			m.over = name + " of a value this large"
			return m.err()
		}
		if name == "flatten" {
			return m.charge(name, 32*sz.leaves+16, sz.nodes)
		}
		// The encoder's buffer and the string made from it.
		return m.charge(name, 2*sz.bytes, sz.nodes)
	case "upper", "lower", "trim", "trimPrefix", "trimSuffix", "toBase64", "fromBase64":
		// At most twice the input (upper-casing grows some runes by half,
		// base64 by a third).
		s := str(0)
		return m.charge(name, 2*int64(len(s))+16, scan(s))
	case "fromJSON":
		// Decoded JSON is larger than its text: up to ~16 bytes of Go
		// value per byte ("[[],[],…]").
		s := str(0)
		return m.charge(name, 16*int64(len(s))+64, int64(len(s)))
	default: // concat, keys, values, toPairs, fromPairs, sort, uniq, reverse, median, mean, max, min
		var n int64
		for _, a := range args {
			n += lenOf(a)
		}
		// A copy of every element (pairs are two-element arrays), sorted
		// in n·log n.
		return m.charge(name, 64*n+16, n*int64(math.Log2(float64(n)+2)+1))
	}
}

// callBuiltin runs expr's own builtin name on args.
func callBuiltin(name string, args []any) (any, error) {
	f := builtin.Builtins[builtin.Index[name]]
	switch {
	case f.Func != nil:
		return f.Func(args...)
	case f.Safe != nil:
		v, _, err := f.Safe(args...)
		return v, err
	case f.Fast != nil && len(args) == 1:
		return f.Fast(args[0]), nil
	}
	return nil, fmt.Errorf("%s: invalid number of arguments (%d)", name, len(args))
}

func meterOf(params []any) (*meter, []any) {
	m, _ := params[0].(*meter)
	if m == nil {
		// Not reachable from a tenant's expression (the meter's name is
		// reserved); an evaluation without one is refused, not unbounded.
		m = &meter{over: "an evaluation without its meter"}
	}
	return m, params[1:]
}

// budgetFunctions are the expr options declaring the budgeted functions.
func budgetFunctions() []expr.Option {
	var opts []expr.Option
	for _, b := range builtin.Builtins {
		name := b.Name
		if !budgetedBuiltin(name) {
			continue
		}
		opts = append(opts, expr.Function(reservedPrefix+"_"+name, func(params ...any) (any, error) {
			m, args := meterOf(params)
			if err := preCharge(m, name, args); err != nil {
				return nil, err
			}
			return callBuiltin(name, args)
		}))
	}
	opts = append(opts,
		expr.Function(fnAdd, func(params ...any) (any, error) {
			m, args := meterOf(params)
			if a, ok := args[0].(string); ok {
				if b, ok := args[1].(string); ok {
					n := int64(len(a)) + int64(len(b))
					if err := m.charge("+ of strings", n, n/64+1); err != nil {
						return nil, err
					}
				}
			}
			return runtime.Add(args[0], args[1]), nil
		}, new(func(*meter, any, any) any)),
		expr.Function(fnEqual, func(params ...any) (any, error) {
			m, args := meterOf(params)
			if err := chargeCompare(m, args[0], args[1]); err != nil {
				return nil, err
			}
			return runtime.Equal(args[0], args[1]), nil
		}, new(func(*meter, any, any) bool)),
		expr.Function(fnNotEqual, func(params ...any) (any, error) {
			m, args := meterOf(params)
			if err := chargeCompare(m, args[0], args[1]); err != nil {
				return nil, err
			}
			return !runtime.Equal(args[0], args[1]), nil
		}, new(func(*meter, any, any) bool)),
		expr.Function(fnIn, func(params ...any) (any, error) {
			m, args := meterOf(params)
			needle, ok := sizeOf(args[0], math.MaxInt64, m.stepsLeft())
			if !ok {
				m.over = "in"
				return nil, m.err()
			}
			list, ok := sizeOf(args[1], math.MaxInt64, m.stepsLeft())
			n := lenOf(args[1])
			if !ok || mulOver(n, needle.nodes, m.stepsLeft()) {
				m.over = "in"
				return nil, m.err()
			}
			if err := m.charge("in", 0, list.nodes+n*needle.nodes); err != nil {
				return nil, err
			}
			return runtime.In(args[0], args[1]), nil
		}, new(func(*meter, any, any) bool)),
		expr.Function(fnScan, func(params ...any) (any, error) {
			m, args := meterOf(params)
			if s, ok := args[0].(string); ok {
				if err := m.charge("a string operator", 0, int64(len(s))/64+1); err != nil {
					return nil, err
				}
			}
			return args[0], nil
		}, new(func(*meter, any) any)),
	)
	iter := func(params ...any) (any, error) {
		m, args := meterOf(params)
		n := lenOf(args[0])
		if err := m.charge("a loop", 16*n, n+1); err != nil {
			return nil, err
		}
		return args[0], nil
	}
	opts = append(opts,
		expr.Function(fnIter, iter, new(func(*meter, any) any)),
		expr.Function(fnIter+"_ints", iter, new(func(*meter, []int) []int)),
		expr.Function(fnIter+"_floats", iter, new(func(*meter, []float64) []float64)),
		expr.Function(fnIter+"_strings", iter, new(func(*meter, []string) []string)),
		expr.Function(fnIter+"_anys", iter, new(func(*meter, []any) []any)),
	)
	return opts
}

// The names of the budgeted operators and of the loop meter.
const (
	fnAdd      = reservedPrefix + "_add"
	fnEqual    = reservedPrefix + "_eq"
	fnNotEqual = reservedPrefix + "_ne"
	fnIn       = reservedPrefix + "_in"
	fnScan     = reservedPrefix + "_scan"
	fnIter     = reservedPrefix + "_iter"
)

// chargeCompare charges a deep comparison: the smaller side's nodes.
func chargeCompare(m *meter, a, b any) error {
	sa, oka := sizeOf(a, math.MaxInt64, m.stepsLeft())
	sb, okb := sizeOf(b, math.MaxInt64, m.stepsLeft())
	n := sa.nodes
	switch {
	case !oka && !okb:
		m.over = "== of values this large"
		return m.err()
	case !oka || (okb && sb.nodes < n):
		n = sb.nodes
	}
	return m.charge("==", 0, n)
}
