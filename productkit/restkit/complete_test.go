package restkit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
)

func completionJSON(c *mcp.Completion) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// A completion reads the recent page, then, once something is typed, the
// search page; it suggests external_id, else id, matched on either or on
// the label, each once, in the order read.
func TestCompleteFrom(t *testing.T) {
	var asked []string
	b := routes{"/v1/debtors": {200, `{"data":[
		{"id":"d1","external_id":"ACME-1","name":"Acme"},
		{"id":"d2","external_id":"","name":"Beta acme"},
		{"id":"ac3","name":"Gamma"},
		{"id":"","external_id":"","name":"Acme ghost"}]}`}}.bridge(&asked)
	src := IDSource{Path: "/v1/debtors", Label: "name", Page: url.Values{"per_page": {"100"}},
		Recent: url.Values{"sort_by": {"updated_at"}}, Search: "q"}
	got := CompleteFrom(context.Background(), b, nil, src, "AC")
	if s := completionJSON(got); s != `{"values":["ACME-1","ac3"],"total":2}` {
		t.Errorf("typed AC: %s", s)
	}
	if want := []string{"/v1/debtors?per_page=100&sort_by=updated_at", "/v1/debtors?per_page=100&q=AC"}; !slices.Equal(asked, want) {
		t.Errorf("reads %q, want %q", asked, want)
	}
	asked = nil
	got = CompleteFrom(context.Background(), b, nil, src, "  ")
	if len(asked) != 1 || len(got.Values) != 0 {
		t.Errorf("blank: read %q, suggested %v", asked, got.Values)
	}
	asked = nil
	src.Search = ""
	got = CompleteFrom(context.Background(), b, nil, src, "")
	if s := completionJSON(got); len(asked) != 1 || s != `{"values":["ACME-1","d2","ac3"],"total":3}` {
		t.Errorf("nothing typed, no search: read %q, %s", asked, s)
	}
}

// A refused listing suggests nothing: with a total of 0, or, for a quiet
// source, no total at all.
func TestCompleteFromRefused(t *testing.T) {
	b := routes{"/v1/x": {403, `{"error":{"message":"no"}}`}}.bridge(nil)
	src := IDSource{Path: "/v1/x", Search: "q"}
	if s := completionJSON(CompleteFrom(context.Background(), b, nil, src, "a")); s != `{"values":[],"total":0}` {
		t.Errorf("refused: %s", s)
	}
	src.QuietRefusal = true
	if s := completionJSON(CompleteFrom(context.Background(), b, nil, src, "a")); s != `{"values":[]}` {
		t.Errorf("quiet: %s", s)
	}
}

// More than CompletionLimit matches answer the first ones, the total and
// hasMore.
func TestCompletionLimit(t *testing.T) {
	items := make([]string, 0, 150)
	for i := range 150 {
		items = append(items, fmt.Sprintf(`{"id":"t%03d"}`, i))
	}
	b := routes{"/v1/t": {200, `{"data":[` + strings.Join(items, ",") + `]}`}}.bridge(nil)
	got := CompleteFrom(context.Background(), b, nil, IDSource{Path: "/v1/t"}, "t")
	if len(got.Values) != CompletionLimit || got.Values[0] != "t000" || got.Total == nil || *got.Total != 150 || !got.HasMore {
		t.Errorf("got %d values, total %v, more %v", len(got.Values), got.Total, got.HasMore)
	}
}

// CompleteIDs picks the source the argument names; another argument gets
// no suggestion and reads nothing.
func TestCompleteIDs(t *testing.T) {
	var asked []string
	b := routes{"/v1/a": {200, `{"data":[{"id":"a1"}]}`}}.bridge(&asked)
	h := CompleteIDs(b, map[string]IDSource{"a_id": {Path: "/v1/a"}})
	got, err := h(context.Background(), &mcp.CompleteRequest{Argument: "a_id", Value: "a"})
	if err != nil || completionJSON(got) != `{"values":["a1"],"total":1}` {
		t.Errorf("a_id: %s, %v", completionJSON(got), err)
	}
	asked = nil
	got, err = h(context.Background(), &mcp.CompleteRequest{Argument: "other", Value: "a"})
	if err != nil || completionJSON(got) != `{"values":[]}` || len(asked) != 0 {
		t.Errorf("other: %s, %v, read %q", completionJSON(got), err, asked)
	}
}
