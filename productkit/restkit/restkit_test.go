package restkit

import (
	"encoding/json"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
)

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	id := "0194f0a2-7c4e-7d1a-9b1e-2f3c4d5e6f70"
	got, err := DecodeCursor(EncodeCursor(id))
	if err != nil || got != id {
		t.Fatalf("round trip: %q %v", got, err)
	}
	for _, bad := range []string{"%%%", "YWJj", EncodeCursor("")} {
		if _, err := DecodeCursor(bad); err == nil {
			t.Fatalf("cursor %q accepted", bad)
		}
	}
	if PageLimit(0) != DefaultLimit || PageLimit(500) != MaxLimit || PageLimit(7) != 7 {
		t.Fatalf("PageLimit: %d %d %d", PageLimit(0), PageLimit(500), PageLimit(7))
	}
}

func TestCursorPage(t *testing.T) {
	t.Parallel()
	rows := []string{"a", "b", "c"}
	id := func(s string) string { return s }
	body := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if got, want := body(CursorPage(rows, 2, id, id).Body), `{"data":["a","b"],"meta":{"next_cursor":"`+EncodeCursor("b")+`"}}`; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	if got := body(CursorPage(rows, 3, id, id).Body); got != `{"data":["a","b","c"],"meta":{"next_cursor":null}}` {
		t.Fatalf("last page: %s", got)
	}
	if got, want := body(CursorPageWithLimit(rows, 2, id, id).Body), `{"data":["a","b"],"meta":{"next_cursor":"`+EncodeCursor("b")+`","limit":2}}`; got != want {
		t.Fatalf("with limit: got %s want %s", got, want)
	}
	if got := body(CursorPage([]string{}, 2, id, id).Body); got != `{"data":[],"meta":{"next_cursor":null}}` {
		t.Fatalf("empty: %s", got)
	}
}

func TestNumberedPage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in                    NumberedParams
		page, perPage, offset int
	}{
		{NumberedParams{}, 1, 25, 0},
		{NumberedParams{Page: 3, PerPage: 10}, 3, 10, 20},
		{NumberedParams{Page: 2, PerPage: 1000}, 2, 100, 100},
	} {
		if p, pp, off := c.in.Window(); p != c.page || pp != c.perPage || off != c.offset {
			t.Errorf("%+v: %d %d %d", c.in, p, pp, off)
		}
	}
	id := func(s string) string { return s }
	b, _ := json.Marshal(NumberedPage([]string{"e"}, 3, 2, 5, id).Body)
	if string(b) != `{"data":["e"],"meta":{"total":5,"page":3,"per_page":2,"total_pages":3}}` {
		t.Fatalf("page: %s", b)
	}
	b, _ = json.Marshal(NumberedPage([]string{}, 1, 25, 0, id).Body)
	if string(b) != `{"data":[],"meta":{"total":0,"page":1,"per_page":25,"total_pages":0}}` {
		t.Fatalf("empty: %s", b)
	}
}

func TestAnnotationPresets(t *testing.T) {
	t.Parallel()
	hints := func(a mcp.ToolAnnotations) [4]bool {
		return [4]bool{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}
	}
	for name, c := range map[string]struct {
		got  mcp.ToolAnnotations
		want [4]bool
	}{
		"read":                   {ReadOnly(), [4]bool{true, false, true, false}},
		"write":                  {Write(false), [4]bool{false, false, false, false}},
		"idempotent write":       {Write(true), [4]bool{false, false, true, false}},
		"destructive":            {Destructive(true), [4]bool{false, true, true, false}},
		"destructive, repeating": {Destructive(false), [4]bool{false, true, false, false}},
	} {
		if hints(c.got) != c.want {
			t.Errorf("%s: %v, want %v", name, hints(c.got), c.want)
		}
	}
}
