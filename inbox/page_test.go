package inbox

import (
	"encoding/json"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	id := "0194f0a2-7c4e-7d1a-9b1e-2f3c4d5e6f70"
	got, err := decodeCursor(encodeCursor(id))
	if err != nil || got != id {
		t.Fatalf("round trip: %q %v", got, err)
	}
	for _, bad := range []string{"%%%", "YWJj", encodeCursor("")} {
		if _, err := decodeCursor(bad); err == nil {
			t.Fatalf("cursor %q accepted", bad)
		}
	}
}

func TestPageResponse(t *testing.T) {
	rows := []string{"a", "b", "c"}
	id := func(s string) string { return s }
	res := pageResponse(rows, 2, id, id)
	b, _ := json.Marshal(res.Body)
	want := `{"data":["a","b"],"meta":{"next_cursor":"` + encodeCursor("b") + `"}}`
	if string(b) != want {
		t.Fatalf("got %s want %s", b, want)
	}
	res = pageResponse(rows, 3, id, id)
	b, _ = json.Marshal(res.Body)
	if string(b) != `{"data":["a","b","c"],"meta":{"next_cursor":null}}` {
		t.Fatalf("last page: %s", b)
	}
}
