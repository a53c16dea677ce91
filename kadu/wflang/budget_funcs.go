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

// budgetedBuiltin says whether builtin name is replaced by a budgeted
// call: the ones whose result can be larger than their input (repeat,
// join, replace, split, toJSON, string, flatten, concat), and the ones
// that copy or read all of their input (upper, fromJSON, sort, keys…).
func budgetedBuiltin(name string) bool {
	switch name {
	case "repeat", "join", "replace", "split", "splitAfter", "toJSON", "string", "flatten", "concat",
		"upper", "lower", "trim", "trimPrefix", "trimSuffix", "toBase64", "fromBase64", "fromJSON",
		"keys", "values", "toPairs", "fromPairs", "sort", "uniq", "reverse", "median", "mean", "max", "min":
		return true
	}
	return false
}

// loopBuiltin says whether builtin name loops over its first argument
// (with a predicate or not): each charges one step per element before it
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
	switch name {
	case "repeat":
		return chargeRepeat(m, args)
	case "join":
		return chargeJoin(m, args)
	case "replace":
		return chargeReplace(m, args)
	case "split", "splitAfter":
		s := strArg(args, 0)
		count := int64(strings.Count(s, strArg(args, 1))) + 1
		return m.charge(name, 16*count, scanSteps(s)+count)
	case "toJSON", "string", "flatten":
		return chargeEncode(m, name, args)
	case "upper", "lower", "trim", "trimPrefix", "trimSuffix", "toBase64", "fromBase64":
		// At most twice the input (upper-casing grows some runes by half,
		// base64 by a third).
		s := strArg(args, 0)
		return m.charge(name, 2*int64(len(s))+16, scanSteps(s))
	case "fromJSON":
		// Decoded JSON is larger than its text: up to ~16 bytes of Go
		// value per byte ("[[],[],…]").
		s := strArg(args, 0)
		return m.charge(name, 16*int64(len(s))+64, int64(len(s)))
	default: // concat, keys, values, toPairs, fromPairs, sort, uniq, reverse, median, mean, max, min
		return chargeCopy(m, name, args)
	}
}

// strArg is args[i] when it is a string, else "" (the builtin then
// refuses it or makes nothing of it).
func strArg(args []any, i int) string {
	if i < len(args) {
		if s, ok := args[i].(string); ok {
			return s
		}
	}
	return ""
}

// scanSteps are the steps of reading s once: one per 64 bytes.
func scanSteps(s string) int64 { return int64(len(s))/64 + 1 }

// chargeRepeat charges repeat(s, n): len(s)·n bytes, refused before the
// product is computed when it would not fit.
func chargeRepeat(m *meter, args []any) error {
	s := strArg(args, 0)
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
}

// chargeJoin charges join(list, glue): the strings' bytes (counted until
// they exceed what is left), the glue once per element and a header per
// element.
func chargeJoin(m *meter, args []any) error {
	glue := strArg(args, 1)
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
}

// chargeReplace charges replace(s, old, new[, n]): s plus what each
// replacement grows it by.
func chargeReplace(m *meter, args []any) error {
	s, old, repl := strArg(args, 0), strArg(args, 1), strArg(args, 2)
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
	return m.charge("replace", int64(len(s))+count*grow, scanSteps(s)+count)
}

// chargeEncode charges toJSON, string and flatten from the written size
// of their (possibly shared) argument.
func chargeEncode(m *meter, name string, args []any) error {
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
}

// chargeCopy charges the builtins that copy their arguments' elements
// (concat, keys, values, toPairs, fromPairs, sort, uniq, reverse,
// median, mean, max, min).
func chargeCopy(m *meter, name string, args []any) error {
	var n int64
	for _, a := range args {
		n += lenOf(a)
	}
	// A copy of every element (pairs are two-element arrays), sorted
	// in n·log n.
	return m.charge(name, 64*n+16, n*int64(math.Log2(float64(n)+2)+1))
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

// budgetFunctions are the expr options declaring the budgeted functions:
// the builtins, the operators and the loop meters.
func budgetFunctions() []expr.Option {
	opts := budgetedBuiltinFunctions()
	opts = append(opts, budgetedOperatorFunctions()...)
	return append(opts, loopMeterFunctions()...)
}

// budgetedBuiltinFunctions declare a budgeted twin of every builtin
// budgetedBuiltin names: it charges (preCharge), then runs expr's own.
func budgetedBuiltinFunctions() []expr.Option {
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
	return opts
}

// budgetedOperatorFunctions declare the operators' budgeted twins: + of
// strings, deep == and !=, in, and the string operators' scan.
func budgetedOperatorFunctions() []expr.Option {
	return []expr.Option{
		expr.Function(fnAdd, budgetedAdd, new(func(*meter, any, any) any)),
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
		expr.Function(fnIn, budgetedIn, new(func(*meter, any, any) bool)),
		expr.Function(fnScan, budgetedScan, new(func(*meter, any) any)),
	}
}

// budgetedAdd is +: two strings are charged the bytes of the result.
func budgetedAdd(params ...any) (any, error) {
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
}

// budgetedIn is in: the list's nodes plus one comparison of the needle
// per element.
func budgetedIn(params ...any) (any, error) {
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
}

// budgetedScan charges a string operator (contains, matches, startsWith…)
// one step per 64 bytes of its left side, and passes the value on.
func budgetedScan(params ...any) (any, error) {
	m, args := meterOf(params)
	if s, ok := args[0].(string); ok {
		if err := m.charge("a string operator", 0, int64(len(s))/64+1); err != nil {
			return nil, err
		}
	}
	return args[0], nil
}

// loopMeterFunctions declare the loop meter, one per list type expr
// types a range with: each charges its list's length in steps before
// the loop runs.
func loopMeterFunctions() []expr.Option {
	return []expr.Option{
		expr.Function(fnIter, meterLoop, new(func(*meter, any) any)),
		expr.Function(fnIter+"_ints", meterLoop, new(func(*meter, []int) []int)),
		expr.Function(fnIter+"_floats", meterLoop, new(func(*meter, []float64) []float64)),
		expr.Function(fnIter+"_strings", meterLoop, new(func(*meter, []string) []string)),
		expr.Function(fnIter+"_anys", meterLoop, new(func(*meter, []any) []any)),
	}
}

// meterLoop charges a loop over args[0]: a step and 16 bytes per element.
func meterLoop(params ...any) (any, error) {
	m, args := meterOf(params)
	n := lenOf(args[0])
	if err := m.charge("a loop", 16*n, n+1); err != nil {
		return nil, err
	}
	return args[0], nil
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
