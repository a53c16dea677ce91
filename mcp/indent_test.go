package mcp

import (
	"bytes"
	encjson "encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// indentCases are bodies whose indentation JSONText must write as
// encoding/json.Indent does: empty containers, escapes kept as written,
// duplicate names, numbers as written, invalid UTF-8, white space around
// the value, and bodies that are not one JSON value.
var indentCases = []string{
	`{}`, `[]`, `"s"`, `1`, `null`, ``, ` `,
	`{"a":[],"b":{},"c":[1,2,{"d":null}],"e":"x\u003c\"y\\","f":1.50e10,"g":-0,"h":true}`,
	`  {"a":1}`, "{\"a\":1}\n", "{\"a\":1} \t\r\n", "\n[1,2]\n\n",
	"{\"a\":\"\xff\xfe\"}", `{"a":1,"a":2}`, `[ 1 , 2 ]`, `{ "a" : { "b" : [ ] } }`,
	`{bad}`, `{"a":1}{}`, `{"a":1`, `[1,]`, "{\"a\":\"\x01\"}", `{"a":"\x"}`, `"\u2028\ud800"`,
}

func encodingJSONIndent(body []byte, indent string) (string, bool) {
	var buf bytes.Buffer
	if encjson.Indent(&buf, body, "", indent) != nil {
		return "", false
	}
	return buf.String(), true
}

// TestIndentedAsEncodingJSON: appendIndented writes what encoding/json's
// Indent writes, and refuses what it refuses, for the cases above and for
// every JSON golden file of the repository (tool catalogs, results).
func TestIndentedAsEncodingJSON(t *testing.T) {
	t.Parallel()
	bodies := append([]string(nil), indentCases...)
	files, _ := filepath.Glob("../*/testdata/golden/*.json")
	more, _ := filepath.Glob("../*/testdata/golden/*/*.json")
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if encjson.Compact(&compact, b) == nil {
			bodies = append(bodies, compact.String())
		}
		bodies = append(bodies, string(b))
	}
	if len(bodies) < len(indentCases)+10 {
		t.Fatalf("only %d bodies: the golden files were not found", len(bodies))
	}
	for _, indent := range []string{"  ", "\t", " \t"} {
		for _, body := range bodies {
			want, wantOK := encodingJSONIndent([]byte(body), indent)
			got, ok := appendIndented([]byte("kept:"), []byte(body), indent)
			if ok != wantOK || (ok && string(got) != "kept:"+want) || (!ok && string(got) != "kept:") {
				t.Fatalf("indent %q of %.200q: got %.300q (%v), want %.300q (%v)", indent, body, got, ok, want, wantOK)
			}
		}
	}
}

// FuzzIndentedAsEncodingJSON holds appendIndented to encoding/json's Indent
// on any input (its seeds run with every go test).
func FuzzIndentedAsEncodingJSON(f *testing.F) {
	for _, c := range indentCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, body string) {
		want, wantOK := encodingJSONIndent([]byte(body), "  ")
		got, ok := appendIndented(nil, []byte(body), "  ")
		if ok != wantOK || (ok && string(got) != want) {
			t.Fatalf("%q: got %q (%v), want %q (%v)", body, got, ok, want, wantOK)
		}
	})
}

// TestTextIndentIsSpacesAndTabs: an indent the formatter cannot write is
// refused when the handler is made, not at a request.
func TestTextIndentIsSpacesAndTabs(t *testing.T) {
	t.Parallel()
	for indent, ok := range map[string]bool{"": true, "  ": true, "\t": true, "--": false, " x": false} {
		_, err := NewHandler(Options{Name: "n", Version: "1", TextIndent: indent}, Catalog{})
		if (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), "TextIndent")) {
			t.Errorf("TextIndent %q: %v", indent, err)
		}
	}
}
