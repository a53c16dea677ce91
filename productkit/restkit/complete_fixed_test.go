package restkit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
)

// Fixed choices are matched by prefix, case-insensitively, in their
// order; an argument without choices gets an empty list, never null.
func TestCompleteFixed(t *testing.T) {
	h := CompleteFixed(map[string][]string{"tone": {"friendly", "Firm", "neutral"}})
	got, _ := h(context.Background(), &mcp.CompleteRequest{Argument: "tone", Value: "f"})
	if !slices.Equal(got.Values, []string{"friendly", "Firm"}) {
		t.Errorf("tone f: %v", got.Values)
	}
	got, _ = h(context.Background(), &mcp.CompleteRequest{Argument: "segment", Value: ""})
	if got.Values == nil || len(got.Values) != 0 {
		t.Errorf("no choices: %#v", got.Values)
	}
}

// Recent days count back from the day given, filtered by what was typed.
func TestRecentDays(t *testing.T) {
	day := time.Date(2026, time.March, 1, 15, 0, 0, 0, time.UTC)
	if got := RecentDays(day, "", 1, 7, 30); !slices.Equal(got, []string{"2026-02-28", "2026-02-22", "2026-01-30"}) {
		t.Errorf("all: %v", got)
	}
	if got := RecentDays(day, "2026-01", 1, 7, 30); !slices.Equal(got, []string{"2026-01-30"}) {
		t.Errorf("typed: %v", got)
	}
	if got := RecentDays(day, "1999", 1); got == nil || len(got) != 0 {
		t.Errorf("none: %#v", got)
	}
}
