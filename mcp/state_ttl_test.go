package mcp

import (
	"errors"
	"testing"
	"time"
)

// A state may be sealed for longer than the default (an approval granted
// later), but never past half a rotation period, so its key still opens it.
func TestStateTTL(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, err := NewStateSealer([][]byte{[]byte("0123456789abcdef0123456789abcdef")}, StateOptions{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	b := binding{principal: "p", method: "tools/call", name: "t", argsHash: argumentsHash(nil)}
	long, err := s.seal(b, nil, nil, 30*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	short, _ := s.seal(b, nil, nil, 0)
	now = now.Add(10 * time.Minute)
	if _, err := s.open(long, b); err != nil {
		t.Fatalf("a 30-minute state must open after 10 minutes: %v", err)
	}
	if _, err := s.open(short, b); !errors.Is(err, ErrInvalidState) {
		t.Fatalf("a default (5-minute) state must not open after 10 minutes: %v", err)
	}
	now = now.Add(21 * time.Minute)
	if _, err := s.open(long, b); !errors.Is(err, ErrInvalidState) {
		t.Fatalf("a 30-minute state must not open after 31 minutes: %v", err)
	}
	capped, _ := s.seal(b, nil, nil, 48*time.Hour)
	now = now.Add(13 * time.Hour)
	if _, err := s.open(capped, b); !errors.Is(err, ErrInvalidState) {
		t.Fatalf("a state's life is capped at half the rotation period: %v", err)
	}
}
