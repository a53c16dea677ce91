package rest

import (
	"bytes"
	encjson "encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

type diffFilter struct {
	Field string   `json:"field" jsonschema:"What the rule looks at."`
	Op    *string  `json:"op,omitempty"`
	Level int      `json:"level"`
	Tags  []string `json:"tags,omitempty"`
}

type diffNested struct {
	Name  string         `json:"name"`
	Score float64        `json:"score,omitempty"`
	Deep  *diffFilter    `json:"deep,omitempty"`
	Extra map[string]int `json:"extra,omitempty"`
}

type diffEmbedded struct {
	Note string `json:"note,omitempty" maxLength:"4"`
}

// diffIn exercises every kind of value a plan decodes.
type diffIn struct {
	ID     string   `json:"id" in:"path" maxLength:"8"`
	Status string   `json:"status,omitempty" in:"query" enum:"open,closed"`
	Limit  int      `json:"limit,omitempty" in:"query" minimum:"1" maximum:"100"`
	Tags   []string `json:"tags,omitempty" in:"query" jsonschema:"Tags."`
	Levels []int    `json:"levels,omitempty" in:"query"`
	Flag   bool     `json:"flag,omitempty" in:"query"`
	Ratio  *float64 `json:"ratio,omitempty" in:"query" minimum:"0" maximum:"1"`
	diffEmbedded
	Title   string            `json:"title" minLength:"1" maxLength:"10"`
	Slug    *string           `json:"slug,omitempty" pattern:"^[a-z]+$" maxLength:"5"`
	Count   *int64            `json:"count,omitempty" minimum:"-1"`
	Small   int8              `json:"small,omitempty"`
	Unsig   uint              `json:"unsig,omitempty"`
	Filters []diffFilter      `json:"filters,omitempty"`
	Meta    map[string]any    `json:"meta,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	When    string            `json:"when,omitempty" format:"date-time"`
	Any     any               `json:"any,omitempty"`
	Nested  *diffNested       `json:"nested,omitempty"`
	Ints    []int             `json:"ints,omitempty"`
	Maybe   *[]string         `json:"maybe,omitempty"`
	Level   string            `json:"level,omitempty" enum:"low,high"`
	Share   *float64          `json:"share,omitempty" minimum:"0.1" maximum:"2.5"`
	At      *time.Time        `json:"at,omitempty"`
	Span    *diffSpan         `json:"span,omitempty"`
	Since   time.Time         `json:"since,omitzero" in:"query"`
}

// diffSpan reads itself, refusing an empty span.
type diffSpan struct {
	From int `json:"from"`
	To   int `json:"to,omitempty"`
}

func (s *diffSpan) UnmarshalJSON(b []byte) error {
	type plain diffSpan
	if err := encjson.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	if s.To <= s.From {
		return errors.New("a span must end after it starts")
	}
	return nil
}

func diffSpec(t testing.TB) (*inputSpec, *oracle) {
	t.Helper()
	spec, err := analyseInput(reflect.TypeFor[diffIn](), "POST")
	if err != nil {
		t.Fatal(err)
	}
	return spec, newOracle(t, spec)
}

func diffRequest(id, query, body string) *http.Request {
	r := httptest.NewRequest("POST", "/things/x?"+query, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.SetPathValue("id", id)
	return r
}

// compareDecoders decodes one request both ways. It returns "" when they
// agree or when the oracle's answer was one the decoder improves on on
// purpose (see oracleUnsound).
func compareDecoders(t testing.TB, spec *inputSpec, o *oracle, id, query, body string) string {
	t.Helper()
	var oldIn diffIn
	var oldErr *Error
	panicked := func() (p bool) {
		defer func() {
			if recover() != nil {
				p = true
			}
		}()
		oldErr = o.decode(diffRequest(id, query, body), true, []byte(body), &oldIn)
		return false
	}()
	if panicked || oracleUnsound(id, query, body, oldErr) {
		return ""
	}
	var newIn diffIn
	newErr := spec.decode(diffRequest(id, query, body), true, &newIn)
	return sameAnswer(oldErr, newErr, &oldIn, &newIn)
}

// oracleUnsound reports the requests whose former answer was wrong, which
// the decoder answers differently on purpose: strings breaking the string
// rule (silently changed to U+FFFD, or kept with a NUL), duplicate member
// names (the last one silently won), trailing bytes that are not a value,
// and errors naming no field after validation had passed (values the
// schema allowed but Go could not hold: 1e2 or 1e400 for an integer,
// "+5" in a query string).
func oracleUnsound(id, query, body string, oldErr *Error) bool {
	if strings.ContainsRune(id, 0) || !utf8.ValidString(id) || strings.Contains(body, `\u0000`) {
		return true
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return true
	}
	for k, vs := range vals {
		for _, v := range append(vs, k) {
			if strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
				return true
			}
		}
	}
	if strings.TrimSpace(body) != "" {
		dec := jsontext.NewDecoder(strings.NewReader(body))
		if _, err := dec.ReadValue(); err != nil {
			return true // not strict JSON (duplicates, invalid UTF-8, surrogates): the old reader was lenient
		}
		if strings.TrimSpace(body[dec.InputOffset():]) != "" {
			return true // trailing content: the old reader accepted some
		}
	}
	if oldErr != nil && oldErr.Code == CodeValidationFailed {
		for _, d := range oldErr.Details {
			if d.Field == "" && d.Message != "expected an object" {
				return true // a failure after validation, naming no field
			}
		}
	}
	return false
}

var diffCases = []struct{ id, query, body string }{
	{"a1", "", `{"title":"ok"}`},
	{"a1", "status=open&limit=5&tags=a,b&tags=c&flag=true&ratio=0.5&levels=1,2", `{"title":"ok"}`},
	{"a1", "status=bogus&limit=0&colour=red&title=x", `{"title":""}`},
	{"toolongid", "limit=abc&flag=maybe&ratio=2&levels=1,x", `{"title":"this title is far too long","extra":1,"status":"open","id":"x"}`},
	{"a1", "", `{}`},
	{"a1", "", ``},
	{"a1", "", `  `},
	{"a1", "", `null`},
	{"a1", "", `[1]`},
	{"a1", "", `"text"`},
	{"a1", "", `{"title":`},
	{"a1", "", `{"title":"a"} {"b":2}`},
	{"a1", "limit=500", `{"title":"a","slug":"ABC123","count":-5,"small":300,"unsig":-1}`},
	{"a1", "", `{"title":"a","slug":null,"count":null,"nested":null,"maybe":null,"filters":null}`},
	{"a1", "", `{"title":null}`},
	{"a1", "", `{"title":5,"slug":true,"count":"1","filters":{},"meta":[],"labels":{"a":1},"ints":[1,"2",3.5]}`},
	{"a1", "", `{"title":"a","filters":[{"field":"x","level":1},{"field":2},{"level":1.5,"extra":true},{}],"maybe":[]}`},
	{"a1", "", `{"title":"a","filters":[{"field":"x","level":1,"op":"eq","tags":["t"]},{"field":"y","level":-2,"op":null,"tags":null}]}`},
	{"a1", "", `{"title":"a","meta":{"a":{"b":[1,2,{"c":null}]},"n":1.5,"s":"x","t":true},"labels":{"k":"v"},"any":{"x":[1]}}`},
	{"a1", "", `{"title":"a","any":3,"nested":{"name":"n","score":1e3,"deep":{"field":"f","level":2},"extra":{"a":1,"b":"x"}}}`},
	{"a1", "", `{"title":"a","nested":{"score":"x","deep":{"level":"2","unknown":1},"extra":{"a":1.5}}}`},
	{"a1", "", `{"title":"a","when":"2026-03-01T12:00:00Z"}`},
	{"a1", "", `{"title":"a","when":"yesterday"}`},
	{"a1", "", `{"title":"a","when":5}`},
	{"a1", "", `{"title":"a","note":"too long","level":"mid"}`},
	{"a1", "", `{"title":"ãéîõü日本","note":"日本語"}`},
	{"a1", "", `{"title":"a\"b\\c\n\u00e9\ud83d\ude00"}`},
	{"a1", "", `{"title":"a","ints":[],"filters":[]}`},
	{"a1", "flag=1&ratio=1e-1&limit=007", `{"title":"a"}`},
	{"a1", "flag=&limit=&status=", `{"title":"a"}`},
	{"a1", "tags=&levels=", `{"title":"a"}`},
	{"a1", "", `{"title":"a","small":-128,"unsig":5,"count":9007199254740993}`},
	{"a1", "", `{"title":"a","count":1e2}`},
	{"a1", "", `{"Title":"a"}`},
	{"a1", "", `{"title":"a","share":0.1}`},
	{"a1", "", `{"title":"a","share":0.09999999999999999}`},
	{"a1", "", `{"title":"a","share":2.5000000000000001}`},
	{"a1", "", `{"title":"a","share":2.50000000001}`},
	{"a1", "", `{"title":"a","share":1e-1}`},
	{"a1", "since=2026-03-01T12:00:00Z", `{"title":"a","at":"2026-03-01T12:00:00+03:00","span":{"from":1,"to":2}}`},
	{"a1", "since=yesterday", `{"title":"a","at":"x","span":{"from":2,"to":1}}`},
	{"a1", "", `{"title":"a","at":5,"span":{"to":2,"extra":1}}`},
	{"a1", "", `{"title":"a","at":null,"span":null}`},
	{"a1", "", `{"title":"a","span":[1]}`},
	{"a1", "", `{"title":"a","span":{"from":"1","to":2}}`},
}

// TestDecodeAnswersLikeTheValidator pins the one-walk decoder to the
// former map-and-validator decoding: same error messages and field
// details, same decoded input.
func TestDecodeAnswersLikeTheValidator(t *testing.T) {
	t.Parallel()
	spec, o := diffSpec(t)
	for _, c := range diffCases {
		if msg := compareDecoders(t, spec, o, c.id, c.query, c.body); msg != "" {
			t.Errorf("id %q query %q body %s:\n%s", c.id, c.query, c.body, msg)
		}
	}
}

func FuzzDecodeAnswersLikeTheValidator(f *testing.F) {
	for _, c := range diffCases {
		f.Add(c.id, c.query, c.body)
	}
	spec, o := diffSpec(f)
	f.Fuzz(func(t *testing.T, id, query, body string) {
		if id == "" {
			return // a path parameter is never empty
		}
		if msg := compareDecoders(t, spec, o, id, query, body); msg != "" {
			t.Errorf("id %q query %q body %s:\n%s", id, query, body, msg)
		}
	})
}

// TestDecodeRefusesUnsoundValues covers what the decoder answers on
// purpose otherwise than the former decoding: each is a validation error
// naming the field.
func TestDecodeRefusesUnsoundValues(t *testing.T) {
	t.Parallel()
	spec, _ := diffSpec(t)
	for _, c := range []struct{ query, body, field, msg string }{
		{"", `{"title":"a","title":"b"}`, "title", "appears more than once"},
		{"", `{"title":"a","meta":{"k":1,"k":2}}`, "meta.k", "appears more than once"},
		{"", `{"title":"a","count":1e400}`, "count", "1e400 is out of range for int64"},
		{"", `{"title":"a","count":99999999999999999999}`, "count", "99999999999999999999 is out of range for int64"},
		{"", `{"title":"a","any":1e400}`, "any", "1e400 is out of range for float64"},
		{"ratio=NaN", `{"title":"a"}`, "ratio", "got string, want number"},
	} {
		var in diffIn
		e := spec.decode(diffRequest("a1", c.query, c.body), true, &in)
		if e == nil || e.Status != 422 || len(e.Details) != 1 || e.Details[0] != (FieldError{c.field, c.msg}) {
			t.Errorf("query %q body %s: %s", c.query, c.body, dump(e))
		}
	}
	var in diffIn
	if e := spec.decode(diffRequest("a1", "", `{"title":"a","count":1e2}`), true, &in); e != nil || *in.Count != 100 {
		t.Errorf("an integral number written with an exponent is an integer: %s", dump(e))
	}
	if e := spec.decode(diffRequest("a1", "", `{"title":"a"}]`), true, &in); e == nil || e.Status != 400 {
		t.Errorf("trailing bytes: %s", dump(e))
	}
}

// The decoded input is what encoding/json would have produced: empty
// arrays are empty, not nil; null leaves pointers nil; interfaces hold
// float64, map[string]any and []any.
func TestDecodeFillsLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	spec, _ := diffSpec(t)
	body := `{"title":"a","ints":[],"maybe":[],"meta":{"n":1,"l":[],"o":{}},"any":[1,"x",null,true],"note":"n"}`
	var got diffIn
	if e := spec.decode(diffRequest("a1", "tags=x,y&levels=3", body), true, &got); e != nil {
		t.Fatal(dump(e))
	}
	var want diffIn
	if err := encjson.Unmarshal([]byte(body), &want); err != nil {
		t.Fatal(err)
	}
	want.ID, want.Tags, want.Levels = "a1", []string{"x", "y"}, []int{3}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %#v, want %#v", got, want)
	}
	if got.Ints == nil || got.Maybe == nil || *got.Maybe == nil {
		t.Fatal("empty arrays must decode as empty slices")
	}
}

func BenchmarkDecodeBody(b *testing.B) {
	spec, _ := diffSpec(b)
	body := []byte(`{"title":"a","filters":[{"field":"x","level":1,"op":"eq","tags":["t"]},{"field":"y","level":2}],"meta":{"a":{"b":[1,2]}},"labels":{"k":"v"},"when":"2026-03-01T12:00:00Z"}`)
	b.ReportAllocs()
	for b.Loop() {
		var in diffIn
		r := diffRequest("a1", "limit=5&status=open", "")
		r.Body = httptestBody(body)
		if e := spec.decode(r, true, &in); e != nil {
			b.Fatal(dump(e))
		}
	}
}

type bodyReader struct{ *bytes.Reader }

func (bodyReader) Close() error { return nil }

func httptestBody(b []byte) bodyReader { return bodyReader{bytes.NewReader(b)} }

func TestNumberLiterals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lit      string
		i        int64
		ok       bool
		integral bool
	}{
		{"0", 0, true, true}, {"-0", 0, true, true}, {"+5", 5, true, true}, {"007", 7, true, true},
		{"123456789012345678", 123456789012345678, true, true},
		{"9223372036854775807", 9223372036854775807, true, true},
		{"9223372036854775808", 0, false, true},
		{"-9223372036854775808", -9223372036854775808, true, true},
		{"1e2", 100, true, true}, {"1.0", 1, true, true}, {"1.5", 0, false, false}, {"-", 0, false, false}, {"", 0, false, false},
	} {
		i, ok := parseInt([]byte(c.lit))
		if i != c.i || ok != c.ok || integral([]byte(c.lit)) != c.integral {
			t.Errorf("%q: %d %v %v", c.lit, i, ok, integral([]byte(c.lit)))
		}
	}
	one := rat([]byte("1"))
	for lit, want := range map[string]int{"0": -1, "1": 0, "2": 1, "1.0": 0, "0.5": -1, "1e1": 1, "99999999999999999999": 1, "-99999999999999999999": -1} {
		if got := compareBound([]byte(lit), one); got != want {
			t.Errorf("compare %s with 1: %d", lit, got)
		}
	}
}

// Types that read themselves (json.Unmarshaler) get the JSON their schema
// allows, and their refusal names the field.
func TestDecodeUnmarshalers(t *testing.T) {
	t.Parallel()
	spec, _ := diffSpec(t)
	var in diffIn
	if e := spec.decode(diffRequest("a1", "since=2026-03-01T12:00:00Z", `{"title":"a","at":"2026-03-01T12:00:00+03:00","span":{"from":1,"to":2}}`), true, &in); e != nil {
		t.Fatal(dump(e))
	}
	if in.At == nil || in.At.Hour() != 12 || in.Since.Day() != 1 || in.Span == nil || in.Span.To != 2 {
		t.Fatalf("decoded %+v", in)
	}
	for body, want := range map[string][]FieldError{
		`{"title":"a","span":{"from":2,"to":1}}`:        {{"span", "a span must end after it starts"}},
		`{"title":"a","span":{"to":2,"extra":1}}`:       {{"span.extra", "unknown field"}, {"span.from", "is required"}},
		`{"title":"a","span":{"from":1,"to":"\u0000"}}`: {{"span.to", msgNUL}},
	} {
		var in diffIn
		e := spec.decode(diffRequest("a1", "", body), true, &in)
		if e == nil || !reflect.DeepEqual(e.Details, want) {
			t.Errorf("%s: %s", body, dump(e))
		}
	}
	var bad diffIn
	e := spec.decode(diffRequest("a1", "", `{"title":"a","at":"x"}`), true, &bad)
	if e == nil || len(e.Details) != 1 || e.Details[0].Field != "at" || !strings.Contains(e.Details[0].Message, "parsing time") {
		t.Errorf("a bad time: %s", dump(e))
	}
}
