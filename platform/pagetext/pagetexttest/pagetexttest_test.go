package pagetexttest

import (
	"testing"
	"testing/fstest"
)

// TestRawTextFindsWords: words a template writes itself are found, in text
// and in visible attributes; words that come from actions are not.
func TestRawTextFindsWords(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"clean.html": {Data: []byte(`{{define "x"}}<p class="lead" id="a">{{.L.T "k"}} · {{.Name}}</p><button value="allow">{{.L.T "b"}}</button>{{end}}`)},
		"text.html":  {Data: []byte(`{{define "y"}}<h1>Sign in</h1>{{end}}`)},
		"attr.html":  {Data: []byte(`<span title="Anyone can {{.X}}">{{.Y}}</span><input type="submit" value="Go">`)},
	}
	got, err := RawText(fsys, "*.html")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"text.html: Sign in": true, `attr.html: <span title="Anyone can §">`: true, `attr.html: <input value="Go">`: true}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("unexpected %q (all: %q)", g, got)
		}
	}
}
