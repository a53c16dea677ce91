package server

import (
	"strings"
	"testing"
)

// TestCleanNameBidi: a client name cannot reorder itself on the approval
// page (a right-to-left override makes "Claude\u202e edoC" read as
// another name), nor break onto a second line; it is cut at 100
// characters.
func TestCleanNameBidi(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Claude\u202e edoC":       "Claude edoC",
		"Cursor\u2066\u200f":      "Cursor",
		"Cursor\r\nVerified: yes": "CursorVerified: yes",
		strings.Repeat("é", 120):  strings.Repeat("é", 100) + "…",
	} {
		if got := cleanName(in); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
}
