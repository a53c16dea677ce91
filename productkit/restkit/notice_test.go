package restkit

import (
	"encoding/json"
	"testing"
)

// The notice comes first, the data keeps the route's order of members,
// and data that is not JSON is an error rather than a broken text.
func TestWithNotice(t *testing.T) {
	t.Parallel()
	got, err := WithNotice(`Third-party "data"`, "charge", json.RawMessage(`{"z":1,"a":"x"}`))
	want := "{\n  \"notice\": \"Third-party \\\"data\\\"\",\n  \"charge\": {\n    \"z\": 1,\n    \"a\": \"x\"\n  }\n}"
	if err != nil || got != want {
		t.Fatalf("got %q, %v\nwant %q", got, err, want)
	}
	if _, err := WithNotice("n", "m", json.RawMessage(`{"unterminated"`)); err == nil {
		t.Fatal("malformed data was accepted")
	}
}

// The API's error message is read from its body; a body without one
// gives "".
func TestAPIMessage(t *testing.T) {
	t.Parallel()
	if got := APIMessage([]byte(`{"error":{"code":"not_found","message":"task not found"}}`)); got != "task not found" {
		t.Errorf("got %q", got)
	}
	if got := APIMessage([]byte(`<html>`)); got != "" {
		t.Errorf("not JSON: %q", got)
	}
}
