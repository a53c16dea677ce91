// Package wflang is the small language of Kadu's workflow tasks: the
// templates a step's arguments are written in and the condition that
// decides whether a step runs. Expressions are github.com/expr-lang/expr
// (v1.17), compiled when the task is saved and evaluated with no side
// effects, within bounds. docs/decisions.md "Kadu's runtime" is its
// reference; in short:
//
// # What an expression sees
//
//   - input: the run's input object, as the caller gave it to
//     kadu_tasks_run ({{input.month}}).
//   - steps: the results of the steps that ran before, by step id: what
//     the tool answered, decoded from its JSON text (a list tool answers
//     {"data": [...], "meta": {...}}, so {{steps.list_overdue.data[0].id}}),
//     the error body {"error": {...}} of a step that failed with on_error
//     continue, and nil for a step its condition skipped. Referring to a
//     step that is not declared earlier is refused when the task is saved.
//
// Everything expr offers on those values is available — arithmetic,
// comparison, and/or/not, the ternary a ? b : c, nil coalescing a ?? b,
// optional member access a?.b, string functions (upper, lower, trim,
// split, replace, hasPrefix…), len, first, last, map, filter, all, any,
// one, none, count, sum, min, max, toJSON, fromJSON, int, float, string,
// round, date parsing — except now(), which would make a run depend on
// the moment it ran. Unknown names are refused when the task is saved.
//
// # Templates
//
// A step's arguments are a JSON object whose string values may hold
// {{ expression }} markers, at any depth (object keys are never
// templated):
//
//   - a string that is exactly one marker takes the expression's value
//     with its type: "{{steps.find.data[0].amount}}" is the number 12.5,
//     "{{input.ids}}" a list;
//   - any other string has each marker replaced by the value's text
//     (strings as they are, numbers in their shortest form, true/false,
//     nothing for nil, anything else as JSON): "Fatura {{input.month}}".
//
// A literal "{{" is written {{"{{"}}.
//
// # Conditions
//
// A step's "condition" is one expression, bare or as one whole marker
// ("{{ len(steps.list.data) > 0 }}"), that must give a boolean: the step
// runs when it is true, and is skipped (its result nil) when it is false.
//
// # Loops
//
// A step's "for_each" is one expression, bare or as one whole marker,
// that must give a list (nil is the empty list): the step's tool is
// called once per element, in order, with item (the element) and index
// (0-based) visible to its arguments and its condition (a false condition
// skips that element; its result is nil). The step's result under
// steps.<id> is the list of the per-element results, in order. A list of
// more than MaxItems elements fails the step; it is never cut.
//
// # Bounds
//
// An expression has at most MaxExpressionBytes characters and MaxNodes
// syntax nodes; one evaluation may touch at most MemoryBudget elements
// (expr's VM counts every element a loop or a range visits, so a filter
// over a huge list stops with an error instead of running on); a rendered
// argument object is at most MaxArgumentBytes of JSON. A workflow has at
// most MaxSteps steps.
package wflang

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"
)

// Bounds of the language.
const (
	MaxSteps           = 100
	MaxExpressionBytes = 1000
	MaxNodes           = 300
	MemoryBudget       = 20_000
	MaxArgumentBytes   = 256 << 10
	// MaxItems bounds the list a for_each step loops over.
	MaxItems = 100
)

// StepIDPattern is what a step id looks like: it is a name in
// expressions (steps.<id>).
var StepIDPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Env is what expressions see when they are evaluated.
type Env struct {
	// Input is the run's input (a decoded JSON object).
	Input map[string]any
	// Steps are the earlier steps' results by id.
	Steps map[string]any
	// Loop says the step is one element of a for_each: Item is the
	// element, Index its 0-based position.
	Loop  bool
	Item  any
	Index int
}

func (e Env) values() map[string]any {
	in, st := e.Input, e.Steps
	if in == nil {
		in = map[string]any{}
	}
	if st == nil {
		st = map[string]any{}
	}
	// One meter for everything this evaluation computes (budget.go).
	v := map[string]any{"input": in, "steps": st, meterName: &meter{}}
	if e.Loop {
		v["item"], v["index"] = e.Item, e.Index
	}
	return v
}

// typeEnv declares the two names an expression may use; loopEnv adds
// item and index, for the arguments and condition of a for_each step.
var (
	typeEnv = map[string]any{"input": map[string]any{}, "steps": map[string]any{}, meterName: (*meter)(nil)}
	loopEnv = types.Map{"input": types.TypeOf(map[string]any{}), "steps": types.TypeOf(map[string]any{}), "item": types.Any, "index": types.Int,
		meterName: types.TypeOf((*meter)(nil))}
)

// scope is what an expression being compiled may name: the earlier
// steps' ids, and item and index inside a for_each step.
type scope struct {
	known map[string]bool
	loop  bool
}

// Error is a mistake in a workflow, found when it is saved: where (the
// step's index and id, and a path into its arguments) and what.
type Error struct {
	Step    int    // 0-based
	StepID  string // may be empty
	Path    string // "arguments.status", "condition", "id", …
	Message string
}

func (e *Error) Error() string {
	who := fmt.Sprintf("step %d", e.Step+1)
	if e.StepID != "" {
		who += " (" + e.StepID + ")"
	}
	if e.Path != "" {
		who += " " + e.Path
	}
	return who + ": " + e.Message
}

// program is one compiled expression. constant says it reads nothing of
// the run (no input, steps, item or index): its value is known when the
// task is saved.
type program struct {
	src      string
	prog     *vm.Program
	constant bool
}

// refs collects the step ids an expression names (steps.<id>) while it
// compiles.
type refs struct{ ids []string }

func (r *refs) Visit(node *ast.Node) {
	m, ok := (*node).(*ast.MemberNode)
	if !ok {
		return
	}
	if id, ok := m.Node.(*ast.IdentifierNode); ok && id.Value == "steps" {
		if s, ok := m.Property.(*ast.StringNode); ok {
			r.ids = append(r.ids, s.Value)
		}
	}
}

// compile compiles one expression, refusing what is too long, too large,
// names anything but input and steps, or names a step not in known.
func compile(src string, sc scope, asBool bool) (*program, error) {
	src = strings.TrimSpace(src)
	switch {
	case src == "":
		return nil, errors.New("an empty expression")
	case len(src) > MaxExpressionBytes:
		return nil, fmt.Errorf("an expression longer than %d characters", MaxExpressionBytes)
	}
	r := &refs{}
	g := &guard{}
	var tenv any = typeEnv
	if sc.loop {
		tenv = loopEnv
	}
	// The optimizer is off: it folds constants while compiling, which
	// would evaluate a tenant's expression outside the budget (budget.go);
	// guard sees the expression as written, before budgetPatch adds the
	// meter's calls.
	opts := []expr.Option{expr.Env(tenv), expr.MaxNodes(MaxNodes), expr.DisableBuiltin("now"), expr.Optimize(false),
		expr.Patch(g), expr.Patch(r), expr.Patch(budgetPatch{})}
	opts = append(opts, budgetFunctions()...)
	if asBool {
		opts = append(opts, expr.AsBool())
	}
	p, err := expr.Compile(src, opts...)
	if g.reserved != "" {
		return nil, fmt.Errorf("%s: %s is a reserved name", src, g.reserved)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s", src, oneLine(err.Error()))
	}
	for _, id := range r.ids {
		if !sc.known[id] {
			return nil, fmt.Errorf("%s: steps.%s is not a step declared before this one", src, id)
		}
	}
	return &program{src: src, prog: p, constant: !g.readsRun}, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// run evaluates p within the budget: expr's MemoryBudget of elements and
// the meter env carries (budget.go). Going over either is ErrBudget.
func (p *program) run(env map[string]any) (any, error) {
	machine := vm.VM{MemoryBudget: MemoryBudget}
	v, err := machine.Run(p.prog, env)
	if err != nil {
		m, _ := env[meterName].(*meter)
		if !errors.Is(err, ErrBudget) && (m != nil && m.over != "" || strings.Contains(err.Error(), "memory budget exceeded")) {
			return nil, fmt.Errorf("%s: %w: %s", p.src, ErrBudget, oneLine(err.Error()))
		}
		return nil, fmt.Errorf("%s: %w", p.src, wrapped{oneLine(err.Error()), err})
	}
	return v, nil
}

// wrapped is an evaluation error on one line that still unwraps to its
// cause (ErrBudget among them).
type wrapped struct {
	msg string
	err error
}

func (w wrapped) Error() string { return w.msg }
func (w wrapped) Unwrap() error { return w.err }

// Condition is a compiled step condition.
type Condition struct{ p *program }

// CompileCondition compiles a step's condition; earlier are the ids of
// the steps declared before it. It is one expression, bare or as one
// whole marker ("{{ input.go }}").
func CompileCondition(src string, earlier []string) (*Condition, error) {
	return compileCondition(src, scope{known: set(earlier)})
}

func compileCondition(src string, sc scope) (*Condition, error) {
	src, err := oneExpression(src, "a condition")
	if err != nil {
		return nil, err
	}
	p, err := compile(src, sc, true)
	if err != nil {
		return nil, err
	}
	return &Condition{p}, nil
}

// oneExpression unwraps an expression written bare or as one whole
// marker.
func oneExpression(src, what string) (string, error) {
	t := strings.TrimSpace(src)
	if strings.HasPrefix(t, "{{") && strings.HasSuffix(t, "}}") && closing(t[2:]) == len(t)-4 {
		src = t[2 : len(t)-2]
	}
	if strings.Contains(src, "{{") {
		return "", errors.New(what + " is one expression, bare or as one {{ }} marker")
	}
	return src, nil
}

// List is a compiled for_each expression.
type List struct{ p *program }

// CompileList compiles a step's for_each; earlier are the ids of the
// steps declared before it (item and index are not visible: they are
// what the list makes).
func CompileList(src string, earlier []string) (*List, error) {
	src, err := oneExpression(src, "for_each")
	if err != nil {
		return nil, err
	}
	p, err := compile(src, scope{known: set(earlier)}, false)
	if err != nil {
		return nil, err
	}
	return &List{p}, nil
}

// Eval gives the list the step loops over: nil is the empty list; a
// value that is not a list, or a list longer than MaxItems, is an error.
func (l *List) Eval(env Env) ([]any, error) {
	v, err := l.p.run(Env{Input: env.Input, Steps: env.Steps}.values())
	if err != nil {
		return nil, err
	}
	if v == nil {
		return []any{}, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("%s: gave %T, not a list", l.p.src, v)
	}
	if rv.Len() > MaxItems {
		return nil, fmt.Errorf("%s: gave %d items; a for_each loops over at most %d (filter the list, or split the work)", l.p.src, rv.Len(), MaxItems)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, nil
}

// Eval reports whether the step runs.
func (c *Condition) Eval(env Env) (bool, error) {
	v, err := c.p.run(env.values())
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: gave %T, not a boolean", c.p.src, v)
	}
	return b, nil
}

// Arguments are a step's compiled argument templates.
type Arguments struct{ root node }

// node is a compiled JSON value: a literal, a templated string, an
// object or an array.
type node interface {
	render(env map[string]any) (any, error)
}

type literal struct{ v any }

func (l literal) render(map[string]any) (any, error) { return l.v, nil }

// whole is a string that is exactly one marker: the expression's value.
type whole struct{ p *program }

func (w whole) render(env map[string]any) (any, error) { return w.p.run(env) }

// interpolated is a string with text and markers.
type interpolated struct {
	parts []any // string or *program
}

func (s interpolated) render(env map[string]any) (any, error) {
	var b strings.Builder
	for _, part := range s.parts {
		switch x := part.(type) {
		case string:
			b.WriteString(x)
		case *program:
			v, err := x.run(env)
			if err != nil {
				return nil, err
			}
			t, err := text(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", x.src, err)
			}
			b.WriteString(t)
		}
		if b.Len() > MaxArgumentBytes {
			return nil, fmt.Errorf("a templated string longer than %d bytes", MaxArgumentBytes)
		}
	}
	return b.String(), nil
}

type object struct {
	keys []string
	vals []node
}

func (o object) render(env map[string]any) (any, error) {
	m := make(map[string]any, len(o.keys))
	for i, k := range o.keys {
		v, err := o.vals[i].render(env)
		if err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, nil
}

type array []node

func (a array) render(env map[string]any) (any, error) {
	out := make([]any, len(a))
	for i, n := range a {
		v, err := n.render(env)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// text is a value as it reads inside a string.
func text(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	}
	if _, ok := sizeOf(v, MaxEvalBytes, MaxEvalSteps); !ok {
		return "", fmt.Errorf("%w: a value of more than %d bytes once written out", ErrBudget, MaxEvalBytes)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("a value that is not JSON (%T)", v)
	}
	return string(b), nil
}

// CompileArguments compiles a step's arguments (a JSON object, or empty
// for none); earlier are the ids of the steps declared before it.
func CompileArguments(raw json.RawMessage, earlier []string) (*Arguments, error) {
	return compileArguments(raw, scope{known: set(earlier)})
}

func compileArguments(raw json.RawMessage, sc scope) (*Arguments, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return &Arguments{root: object{}}, nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, &pathError{"", fmt.Errorf("not JSON: %v", err)}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, &pathError{"", errors.New("must be a JSON object")}
	}
	root, err := compileValue(v, sc, "")
	if err != nil {
		return nil, err
	}
	return &Arguments{root: root}, nil
}

// pathError is a compile error at a path inside the arguments.
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string {
	if e.path == "" {
		return e.err.Error()
	}
	return e.path + ": " + e.err.Error()
}

func compileValue(v any, known scope, path string) (node, error) {
	switch x := v.(type) {
	case map[string]any:
		o := object{}
		for k, val := range x {
			n, err := compileValue(val, known, join(path, k))
			if err != nil {
				return nil, err
			}
			o.keys, o.vals = append(o.keys, k), append(o.vals, n)
		}
		return o, nil
	case []any:
		a := make(array, len(x))
		for i, val := range x {
			n, err := compileValue(val, known, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			a[i] = n
		}
		return a, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return literal{i}, nil
		}
		f, _ := x.Float64()
		return literal{f}, nil
	case string:
		n, err := compileString(x, known)
		if err != nil {
			return nil, &pathError{path, err}
		}
		return n, nil
	}
	return literal{v}, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// compileString splits a string into text and {{ }} markers.
func compileString(s string, known scope) (node, error) {
	if !strings.Contains(s, "{{") {
		// Only "{{" opens a marker; a lone "}}" is text.
		return literal{s}, nil
	}
	var parts []any
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			if rest != "" {
				parts = append(parts, rest)
			}
			break
		}
		if i > 0 {
			parts = append(parts, rest[:i])
		}
		end := closing(rest[i+2:])
		if end < 0 {
			return nil, errors.New(`a "{{" without its "}}"`)
		}
		p, err := compile(rest[i+2:i+2+end], known, false)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
		rest = rest[i+2+end+2:]
	}
	if len(parts) == 1 {
		if p, ok := parts[0].(*program); ok {
			return whole{p}, nil
		}
	}
	return interpolated{parts}, nil
}

// closing finds the "}}" that ends a marker, skipping string literals
// inside the expression (so {{"}}"}} is the text "}}").
func closing(s string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			return i
		}
	}
	return -1
}

// Render evaluates the templates and returns the arguments object as
// JSON.
func (a *Arguments) Render(env Env) (json.RawMessage, error) {
	v, err := a.root.render(env.values())
	if err != nil {
		return nil, err
	}
	// The values may share parts (size.go): measured before they are
	// written.
	if _, ok := sizeOf(v, MaxEvalBytes, MaxEvalSteps); !ok {
		return nil, fmt.Errorf("%w: the arguments would be more than %d bytes of JSON", ErrBudget, MaxEvalBytes)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the arguments do not make JSON: %v", err)
	}
	if len(b) > MaxArgumentBytes {
		return nil, fmt.Errorf("the arguments are %d bytes of JSON, more than %d", len(b), MaxArgumentBytes)
	}
	return b, nil
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// StepSpec is a workflow step as Validate reads it.
type StepSpec struct {
	ID        string
	Tool      string
	Arguments json.RawMessage
	If        string
	OnError   string
	// ForEach, when not empty, is the list the step loops over.
	ForEach string
}

// Compiled is a validated step, ready to run.
type Compiled struct {
	StepSpec
	Args *Arguments
	Cond *Condition // nil: always runs
	Each *List      // nil: one call
}

// Validate checks a whole workflow as it is saved — ids, tools, on_error,
// every expression — and compiles it. allowed, when not nil, are the tools
// the task may call (a step calling another is refused).
func Validate(steps []StepSpec, allowed func(tool string) bool) ([]Compiled, error) {
	if len(steps) == 0 {
		return nil, &Error{Step: 0, Message: "a workflow needs at least one step"}
	}
	if len(steps) > MaxSteps {
		return nil, &Error{Step: MaxSteps, Message: fmt.Sprintf("a workflow has at most %d steps", MaxSteps)}
	}
	var earlier []string
	seen := map[string]bool{}
	out := make([]Compiled, 0, len(steps))
	for i, st := range steps {
		fail := func(path, msg string) error { return &Error{Step: i, StepID: st.ID, Path: path, Message: msg} }
		if st.ID != "" {
			switch {
			case !StepIDPattern.MatchString(st.ID):
				return nil, fail("id", "an id is lower-case letters, digits and _, starting with a letter, at most 64")
			case seen[st.ID]:
				return nil, fail("id", "another step has this id")
			}
		}
		if st.Tool == "" {
			return nil, fail("tool", "a step names the tool it calls")
		}
		if allowed != nil && !allowed(st.Tool) {
			return nil, fail("tool", fmt.Sprintf("%q is not one of the task's allowed tools", st.Tool))
		}
		switch st.OnError {
		case "", "stop", "continue":
		default:
			return nil, fail("on_error", "on_error is stop or continue")
		}
		c := Compiled{StepSpec: st}
		var err error
		sc := scope{known: set(earlier)}
		if strings.TrimSpace(st.ForEach) != "" {
			if c.Each, err = CompileList(st.ForEach, earlier); err != nil {
				return nil, fail("for_each", err.Error())
			}
			sc.loop = true
		}
		if c.Args, err = compileArguments(st.Arguments, sc); err != nil {
			path := "arguments"
			var pe *pathError
			if errors.As(err, &pe) && pe.path != "" {
				path += "." + pe.path
				err = pe.err
			}
			return nil, fail(path, err.Error())
		}
		if strings.TrimSpace(st.If) != "" {
			if c.Cond, err = compileCondition(st.If, sc); err != nil {
				return nil, fail("condition", err.Error())
			}
		}
		if st.ID != "" {
			seen[st.ID] = true
			earlier = append(earlier, st.ID)
		}
		out = append(out, c)
	}
	return out, nil
}
