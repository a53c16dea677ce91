package jsonscan

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func members(t *testing.T, in string) (map[string]string, error) {
	t.Helper()
	s := Get()
	defer Put(s)
	if err := s.Start([]byte(in)); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for {
		name, v, ok, err := s.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, s.Finish()
		}
		out[string(name)] = string(v)
	}
}

func TestScanner(t *testing.T) {
	got, err := members(t, ` {"a":1, "b":{"x":[1,2]}, "\u0063":"z"} `)
	if err != nil || got["a"] != "1" || got["b"] != `{"x":[1,2]}` || got["c"] != `"z"` {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := members(t, `{"a":1,"\u0061":2}`); !errors.Is(err, jsontext.ErrDuplicateName) {
		t.Fatalf("an escaped duplicate must be refused: %v", err)
	}
	if _, err := members(t, `{"a":{"k":1,"k":2}}`); !errors.Is(err, jsontext.ErrDuplicateName) {
		t.Fatalf("a nested duplicate must be refused: %v", err)
	}
	if _, err := members(t, `[1]`); !errors.Is(err, ErrNotObject) {
		t.Fatalf("array: %v", err)
	}
	if _, err := members(t, `{"a":1} {"b":2}`); err == nil {
		t.Fatal("two values must be refused")
	}
	if _, err := members(t, "{\"a\":\"\xff\"}"); err == nil {
		t.Fatal("invalid UTF-8 must be refused")
	}
	if _, err := members(t, `{"a":`); err == nil {
		t.Fatal("truncated input must be refused")
	}
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{`"plain"`: "plain", `"tab\there"`: "tab\there", `"\u00e9"`: "é"} {
		if got, ok := String(jsontext.Value(in)); !ok || got != want {
			t.Errorf("String(%s) = %q %v", in, got, ok)
		}
	}
	if _, ok := String(jsontext.Value(`12`)); ok {
		t.Error("a number is not a string")
	}
}
