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
	t.Parallel()
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
	t.Parallel()
	for in, want := range map[string]string{`"plain"`: "plain", `"tab\there"`: "tab\there", `"\u00e9"`: "é"} {
		if got, ok := String(jsontext.Value(in)); !ok || got != want {
			t.Errorf("String(%s) = %q %v", in, got, ok)
		}
	}
	if _, ok := String(jsontext.Value(`12`)); ok {
		t.Error("a number is not a string")
	}
}

func TestUnquoted(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{`"plain"`: "plain", `""`: "", `"tab\there"`: "tab\there", `"\u00e9"`: "é"} {
		if got, ok := Unquoted(jsontext.Value(in)); !ok || string(got) != want {
			t.Errorf("Unquoted(%s) = %q %v", in, got, ok)
		}
	}
	for _, in := range []string{`12`, `null`, `{"a":"b"}`, ``} {
		if _, ok := Unquoted(jsontext.Value(in)); ok {
			t.Errorf("Unquoted(%s): not a string", in)
		}
	}
	// Without escapes the text is the input's own bytes, and appending to
	// it must not write over what follows it in the input.
	in := []byte(`"name","rest"`)
	got, _ := Unquoted(jsontext.Value(in[:6]))
	if &got[0] != &in[1] {
		t.Error("plain text was copied")
	}
	_ = append(got, 'X')
	if string(in) != `"name","rest"` {
		t.Errorf("append wrote into the input: %s", in)
	}
}

// A pooled scanner keeps nothing of the last input.
func TestPutForgetsInput(t *testing.T) {
	t.Parallel()
	s := Get()
	if err := s.Start([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	Put(s)
	if s.in != nil || s.buf.Len() != 0 {
		t.Error("the scanner still holds its input")
	}
	s = Get()
	defer Put(s)
	if err := s.Start([]byte(`{"b":2}`)); err != nil {
		t.Fatal(err)
	}
	if name, v, ok, err := s.Next(); !ok || err != nil || string(name) != "b" || string(v) != "2" {
		t.Fatalf("%s %s %v %v", name, v, ok, err)
	}
}

func BenchmarkScanEnvelope(b *testing.B) {
	in := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"emails_list","arguments":{"limit":10}}}`)
	b.ReportAllocs()
	for b.Loop() {
		s := Get()
		if s.Start(in) != nil {
			b.Fatal("start")
		}
		for {
			_, v, ok, err := s.Next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			_, _ = Unquoted(v)
		}
		Put(s)
	}
}
