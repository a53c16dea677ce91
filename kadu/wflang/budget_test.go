package wflang

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestHostileExpressions: every expression that grows without bound
// stops with ErrBudget, having allocated a bounded amount (TotalAlloc is
// process-wide, so these cases run one at a time, not in parallel) in a
// bounded time. Before the budget, the first case built a terabyte string
// and the second a 512 MB one.
func TestHostileExpressions(t *testing.T) {
	// Not parallel: runtime.MemStats counts every goroutine's allocations.
	cases := []struct{ name, src string }{
		{"probe reduce doubling n=40", `reduce(1..40, #acc + #acc, "ab")`},
		{"probe reduce doubling n=28", `reduce(1..28, #acc + #acc, "ab")`},
		{"doubling of the input", `reduce(1..40, #acc + #acc, input.month)`},
		{"repeat doubling", `reduce(1..40, repeat(#acc, 2), "ab")`},
		{"replace doubling", `reduce(1..40, replace(#acc, "a", "aa"), "ab")`},
		{"replace of the empty string", `replace(repeat("x", 5000), "", repeat("y", 1000))`},
		{"join doubling", `reduce(1..40, join([#acc, #acc], ""), "ab")`},
		{"toJSON doubling", `reduce(1..40, toJSON([#acc, #acc]), "ab")`},
		{"string doubling", `reduce(1..40, string([#acc, #acc]), "ab")`},
		{"upper doubling", `reduce(1..40, upper(#acc) + lower(#acc), "ab")`},
		{"number formatting doubling", `reduce(1..60, string(#acc) + string(#acc), 99999999999)`},
		{"array concat doubling", `reduce(1..40, concat(#acc, #acc), [1])`},
		{"shared array written out", `reduce(1..40, [#acc, #acc], 1)`},
		{"shared array in text", `x{{ reduce(1..40, [#acc, #acc], 1) }}`},
		{"shared array flattened", `len(flatten(reduce(1..40, [#acc, #acc], 1)))`},
		{"shared array compared", `let a = reduce(1..40, [#acc, #acc], 1); let b = reduce(1..40, [#acc, #acc], 1); a == b`},
		{"shared array searched", `let a = reduce(1..40, [#acc, #acc], 1); a in [a, a]`},
		{"deep nesting written out", `toJSON(reduce(1..15000, [#acc], 1))`},
		{"nested ranges", `len(map(1..10000, map(1..10000, #)))`},
		{"nested loops over one list", `let l = 1..15000; count(l, count(l, count(l, true) > 0) > 0)`},
		{"in over a list in a loop", `let l = 1..15000; count(l, # in l)`},
		{"string operator in a loop", `let s = repeat("ab", 900000); count(1..15000, s contains "zz")`},
		{"repeat big", `repeat(repeat("x", 1000), 100000)`},
		{"repeat overflow", `repeat("ab", 9223372036854775807)`},
		{"toJSON of a big structure", `toJSON(map(1..15000, ({"a": repeat("x", 300)})))`},
		{"split blow-up", `len(split(reduce(1..30, #acc + #acc, "a"), ""))`},
		{"split then join blow-up", `join(map(split(repeat("x", 100000), ""), repeat(#, 100)), "")`},
		{"fromJSON of a big text", `fromJSON("[" + repeat("[],", 400000) + "[]]")`},
		{"sort of a big list in a loop", `let l = 1..15000; count(1..15000, len(sort(l)) > 0)`},
	}
	for _, c := range cases {
		src := c.src
		if !strings.Contains(src, "{{") {
			src = "{{ " + src + " }}"
		}
		raw, _ := json.Marshal(map[string]string{"x": src})
		a, err := CompileArguments(raw, nil)
		if err != nil {
			t.Errorf("%s: does not compile: %v", c.name, err)
			continue
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err = a.Render(env())
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		if !errors.Is(err, ErrBudget) {
			t.Errorf("%s: %v, want the budget error", c.name, err)
		}
		if alloc > 64<<20 {
			t.Errorf("%s: allocated %d MB", c.name, alloc>>20)
		}
		if took > 5*time.Second {
			t.Errorf("%s: took %v", c.name, took)
		}
	}
}

// TestArrayPlusIsAnError: + on two arrays is not concatenation in expr,
// so doubling an array with it fails at once, whatever the size.
func TestArrayPlusIsAnError(t *testing.T) {
	t.Parallel()
	a, err := CompileArguments(json.RawMessage(`{"x":"{{ reduce(1..40, #acc + #acc, [1]) }}"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Render(env()); err == nil || !strings.Contains(err.Error(), "invalid operation") {
		t.Errorf("array + array: %v", err)
	}
}

// TestBudgetKeepsTheLanguage: the rewritten operators and builtins give
// what expr gives, and ordinary templates stay far from the budget.
func TestBudgetKeepsTheLanguage(t *testing.T) {
	t.Parallel()
	cases := []struct{ src, want string }{
		{`"a" + "b" + input.month`, `"ab2026-03"`},
		{`1 + 2`, `3`},
		{`len(1..(1 + 2))`, `3`},
		{`input.n + 0.5`, `2.5`},
		{`reduce(1..3, #acc + #, 0)`, `6`},
		{`reduce(1..3, #acc + "x", "")`, `"xxx"`},
		{`input.ids == ["x", "y"]`, `true`},
		{`input.ids != ["x"]`, `true`},
		{`"x" in input.ids`, `true`},
		{`"k" in {"k": 1}`, `true`},
		{`input.month contains "03" && input.month startsWith "2026" && input.month matches "^[0-9-]+$"`, `true`},
		{`join(input.ids, ",")`, `"x,y"`},
		{`split("a,b,c", ",")`, `["a","b","c"]`},
		{`replace("aXbX", "X", "-")`, `"a-b-"`},
		{`repeat("ab", 3)`, `"ababab"`},
		{`toJSON(input.ids)`, `"[\n  \"x\",\n  \"y\"\n]"`},
		{`string(42)`, `"42"`},
		{`upper(trim("  ab "))`, `"AB"`},
		{`concat([1], [2, 3])`, `[1,2,3]`},
		{`flatten([[1], [2, [3]]])`, `[1,2,3]`},
		{`sort([3, 1, 2])`, `[1,2,3]`},
		{`max(1, 5, 3)`, `5`},
		{`keys({"a": 1})`, `["a"]`},
		{`fromJSON("{\"a\":[1,2]}").a[1]`, `2`},
		{`sum(map(steps.list_overdue.data, .amount))`, `15.5`},
		{`map(filter(1..5, # > 3), # * 2)`, `[8,10]`},
		{`sortBy(steps.list_overdue.data, .amount)[0].id`, `"c2"`},
		{`count(1..10000, # % 2 == 0)`, `5000`},
		{`len(toJSON(map(1..1000, ({"a": "x"}))))`, `22002`},
	}
	for _, c := range cases {
		raw, _ := json.Marshal(map[string]string{"x": "{{ " + c.src + " }}"})
		a, err := CompileArguments(raw, []string{"list_overdue"})
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		got, err := a.Render(env())
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if want := `{"x":` + c.want + `}`; string(got) != want {
			t.Errorf("%s = %s, want %s", c.src, got, want)
		}
	}
}

// TestReservedNames: the meter and the budgeted functions cannot be named
// in what a tenant writes, nor reached through $env.
func TestReservedNames(t *testing.T) {
	t.Parallel()
	for _, src := range []string{`__wfm`, `__wf_add(__wfm, "a", "b")`, `__wf_repeat(nil, "x", 3)`, `$env`, `$env["__wfm"]`, `let __wfx = 1; __wfx`} {
		_, err := CompileCondition(src, nil)
		if err == nil || !strings.Contains(err.Error(), "reserved name") {
			t.Errorf("%s: %v, want a reserved name error", src, err)
		}
	}
}

// TestConstantsCheckedAtSave: an expression that reads nothing of the
// run is evaluated under the budget when the task is saved, and refused
// naming the step and the path; one that reads the run is left to the
// run.
func TestConstantsCheckedAtSave(t *testing.T) {
	t.Parallel()
	bomb := `{{ reduce(1..40, #acc + #acc, \"ab\") }}`
	for _, c := range []struct {
		spec StepSpec
		path string
	}{
		{StepSpec{ID: "a", Tool: "t", Arguments: json.RawMessage(`{"x":"` + bomb + `"}`)}, "arguments.x"},
		{StepSpec{ID: "a", Tool: "t", Arguments: json.RawMessage(`{"o":{"l":["ok", "n: ` + bomb + `"]}}`)}, "arguments.o.l[1]"},
		{StepSpec{ID: "a", Tool: "t", If: `len(reduce(1..40, #acc + #acc, "ab")) > 0`}, "condition"},
		{StepSpec{ID: "a", Tool: "t", ForEach: `reduce(1..40, concat(#acc, #acc), [1])`}, "for_each"},
	} {
		compiled, err := Validate([]StepSpec{{ID: "first", Tool: "t"}, c.spec}, nil)
		if err != nil {
			t.Fatalf("%+v: %v", c.spec, err)
		}
		err = CheckConstants(compiled)
		var we *Error
		if !errors.As(err, &we) || we.Step != 1 || we.Path != c.path || !strings.Contains(we.Message, "expression budget exceeded") {
			t.Errorf("%+v: got %v, want a budget error at step 1 %s", c.spec, err, c.path)
		}
	}
	ok, err := Validate([]StepSpec{
		{ID: "a", Tool: "t", Arguments: json.RawMessage(`{"x":"{{ reduce(1..40, #acc + #acc, input.seed) }}","y":"{{ repeat(\"ab\", 3) }}"}`), If: "1 < 2"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckConstants(ok); err != nil {
		t.Errorf("an expression that reads the input, or a small constant: %v", err)
	}
}
