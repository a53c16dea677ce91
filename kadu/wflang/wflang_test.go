package wflang

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func env() Env {
	var steps map[string]any
	_ = json.Unmarshal([]byte(`{"list_overdue":{"data":[{"id":"c1","amount":12.5,"tags":["a","b"]},{"id":"c2","amount":3}],"meta":{"next_cursor":null}},"skipped":null}`), &steps)
	return Env{Input: map[string]any{"month": "2026-03", "n": 2.0, "ids": []any{"x", "y"}}, Steps: steps}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	cases := []struct{ args, want string }{
		{`{"month":"{{input.month}}"}`, `{"month":"2026-03"}`},
		{`{"id":"{{steps.list_overdue.data[0].id}}"}`, `{"id":"c1"}`},
		// A whole marker keeps the value's type.
		{`{"amount":"{{steps.list_overdue.data[0].amount}}","ids":"{{input.ids}}","n":"{{ input.n * 2 }}"}`, `{"amount":12.5,"ids":["x","y"],"n":4}`},
		// Interpolation turns values into text.
		{`{"note":"Fatura {{input.month}}: {{len(steps.list_overdue.data)}} cobranças, {{steps.list_overdue.data[0].tags}}{{steps.skipped}}"}`, `{"note":"Fatura 2026-03: 2 cobranças, [\"a\",\"b\"]"}`},
		{`{"nested":{"list":["{{upper(input.month)}}", 7, true, null]}}`, `{"nested":{"list":["2026-03",7,true,null]}}`},
		{`{"total":"{{sum(map(steps.list_overdue.data, .amount))}}","big":"{{filter(steps.list_overdue.data, .amount > 5)[0].id}}"}`, `{"big":"c1","total":15.5}`},
		{`{"lit":"{{\"{{\"}} and }} stay"}`, `{"lit":"{{ and }} stay"}`},
		{`{"safe":"{{steps.skipped?.data ?? \"none\"}}"}`, `{"safe":"none"}`},
		{``, `{}`},
	}
	for _, c := range cases {
		a, err := CompileArguments(json.RawMessage(c.args), []string{"list_overdue", "skipped"})
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		got, err := a.Render(env())
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.args, got, c.want)
		}
	}
}

func TestConditions(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]bool{
		`len(steps.list_overdue.data) > 0`:           true,
		`input.month == "2026-04"`:                   false,
		`steps.skipped == nil && input.n >= 2`:       true,
		`any(steps.list_overdue.data, .amount > 10)`: true,
		`"b" in steps.list_overdue.data[0].tags`:     true,
		`steps.list_overdue.meta.next_cursor != nil`: false,
	} {
		c, err := CompileCondition(src, []string{"list_overdue", "skipped"})
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if got, err := c.Eval(env()); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
}

// Mistakes are found when the task is saved, naming the step and where.
func TestValidate(t *testing.T) {
	t.Parallel()
	ok := []StepSpec{
		{ID: "list_overdue", Tool: "dunning_charges_list", Arguments: json.RawMessage(`{"status":"overdue"}`)},
		{Tool: "inbox_emails_list", Arguments: json.RawMessage(`{"q":"{{steps.list_overdue.data[0].id}}"}`), If: `len(steps.list_overdue.data) > 0`, OnError: "continue"},
	}
	compiled, err := Validate(ok, func(string) bool { return true })
	if err != nil || len(compiled) != 2 || compiled[1].Cond == nil || compiled[0].Cond != nil {
		t.Fatalf("valid workflow: %v", err)
	}
	bad := []struct {
		steps []StepSpec
		want  string
	}{
		{nil, "at least one step"},
		{[]StepSpec{{Tool: "t", Arguments: json.RawMessage(`{"a":"{{steps.later.x}}"}`)}, {ID: "later", Tool: "t"}}, "step 1 arguments.a: steps.later.x: steps.later is not a step declared before"},
		{[]StepSpec{{ID: "a", Tool: "t"}, {ID: "a", Tool: "t"}}, "step 2 (a) id: another step has this id"},
		{[]StepSpec{{ID: "Bad-Id", Tool: "t"}}, "id: an id is"},
		{[]StepSpec{{Tool: ""}}, "names the tool"},
		{[]StepSpec{{Tool: "forbidden"}}, `"forbidden" is not one of the task's allowed tools`},
		{[]StepSpec{{Tool: "t", OnError: "retry"}}, "on_error is stop or continue"},
		{[]StepSpec{{Tool: "t", Arguments: json.RawMessage(`{"a":"{{ input.month"}`)}}, `arguments.a: a "{{" without its "}}"`},
		{[]StepSpec{{Tool: "t", Arguments: json.RawMessage(`{"a":"{{ secrets.key }}"}`)}}, "unknown name secrets"},
		{[]StepSpec{{Tool: "t", Arguments: json.RawMessage(`{"a":"{{ now() }}"}`)}}, "now"},
		{[]StepSpec{{Tool: "t", Arguments: json.RawMessage(`[1]`)}}, "must be a JSON object"},
		{[]StepSpec{{Tool: "t", If: `1 + 1`}}, "condition:"},
		{[]StepSpec{{Tool: "t", If: `{{input.x}} and {{input.y}}`}}, "one {{ }} marker"},
		{[]StepSpec{{Tool: "t", Arguments: json.RawMessage(`{"a":"{{` + strings.Repeat("1+", 600) + `1}}"}`)}}, "longer than"},
	}
	for _, b := range bad {
		_, err := Validate(b.steps, func(tool string) bool { return tool != "forbidden" })
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: %v, want %q", b.steps, err, b.want)
		}
	}
	many := make([]StepSpec, MaxSteps+1)
	for i := range many {
		many[i] = StepSpec{Tool: "t"}
	}
	if _, err := Validate(many, nil); err == nil {
		t.Error("a workflow of too many steps was accepted")
	}
}

// Evaluation is bounded: a loop over a huge range stops with an error.
func TestBounded(t *testing.T) {
	t.Parallel()
	a, err := CompileArguments(json.RawMessage(`{"n":"{{ len(filter(1..1000000, # % 2 == 0)) }}"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Render(env()); err == nil || !strings.Contains(err.Error(), "memory budget") {
		t.Errorf("a million-element loop: %v", err)
	}
	big, err := CompileArguments(json.RawMessage(`{"s":"{{ repeat(\"x\", 300000) }}"}`), nil)
	if err == nil {
		if _, err := big.Render(env()); err == nil {
			t.Error("a 300 KB argument was rendered")
		}
	}
	c, _ := CompileCondition(`steps.list_overdue.data[5].id == "x"`, []string{"list_overdue"})
	if _, err := c.Eval(env()); err == nil {
		t.Error("an index out of range evaluated")
	}
}

func TestForEach(t *testing.T) {
	t.Parallel()
	steps, err := Validate([]StepSpec{
		{ID: "list_overdue", Tool: "t"},
		{ID: "each", Tool: "t", ForEach: "{{ steps.list_overdue.data }}",
			Arguments: json.RawMessage(`{"id":"{{item.id}}","n":"{{index}}","note":"#{{index + 1}} {{item.id}}"}`), If: "item.amount > 5"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := steps[1].Each.Eval(env())
	if err != nil || len(list) != 2 {
		t.Fatalf("list %v %v", list, err)
	}
	var got []string
	for i, it := range list {
		e := env()
		e.Loop, e.Item, e.Index = true, it, i
		ok, err := steps[1].Cond.Eval(e)
		if err != nil {
			t.Fatal(err)
		}
		a, err := steps[1].Args.Render(e)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strconv.FormatBool(ok)+" "+string(a))
	}
	want := []string{`true {"id":"c1","n":0,"note":"#1 c1"}`, `false {"id":"c2","n":1,"note":"#2 c2"}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}

	// nil is the empty list; a non-list and a list over MaxItems are errors.
	for src, want := range map[string]string{
		"steps.skipped":                         "",
		"input.month":                           "not a list",
		"1..(" + strconv.Itoa(MaxItems+1) + ")": "at most 100",
	} {
		l, err := CompileList(src, []string{"skipped"})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		v, err := l.Eval(env())
		switch {
		case want == "" && (err != nil || len(v) != 0):
			t.Errorf("%s: %v %v", src, v, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want an error with %q", src, err, want)
		}
	}
	// The loop's names are seen only where the loop gives them.
	for _, c := range []struct {
		spec StepSpec
		path string
	}{
		{StepSpec{Tool: "t", Arguments: json.RawMessage(`{"id":"{{item.id}}"}`)}, "arguments.id"},
		{StepSpec{Tool: "t", If: "index > 0"}, "condition"},
		{StepSpec{Tool: "t", ForEach: "item"}, "for_each"},
		{StepSpec{Tool: "t", ForEach: "steps.later"}, "for_each"},
		{StepSpec{Tool: "t", ForEach: "{{a}} {{b}}"}, "for_each"},
		{StepSpec{Tool: "t", ForEach: "input.list +"}, "for_each"},
	} {
		_, err := Validate([]StepSpec{{ID: "first", Tool: "t"}, c.spec}, nil)
		var we *Error
		if !errors.As(err, &we) || we.Step != 1 || we.Path != c.path {
			t.Errorf("%+v: got %v, want an error at step 1 %s", c.spec, err, c.path)
		}
	}
}
