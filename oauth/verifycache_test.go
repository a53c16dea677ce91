package oauth

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCachedVerifierVerifiesOnceUntilExpiry: a token verified once is
// recognized again without its signature being checked (the verifier's
// keys withdrawn meanwhile do not refuse it), each caller gets an identity
// of its own, and at the token's expiry the cache lets go and the token is
// verified — and refused — again.
func TestCachedVerifierVerifiesOnceUntilExpiry(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	is, _, v := newTestIssuer(t, c)
	cv := &CachedVerifier{Next: v, Now: c.now, MaxAge: time.Hour}
	tok, _, err := is.Issue(grant()) // 10 minutes
	if err != nil {
		t.Fatal(err)
	}
	id, err := cv.Verify(context.Background(), tok)
	if err != nil || id.Subject != "user-1" || !id.Expiry.Equal(c.t.Add(10*time.Minute)) {
		t.Fatalf("%+v %v", id, err)
	}
	id.Role, id.Scopes[0] = "owner", "changed"
	// Another key set: a fresh verification would now fail.
	other, _, _ := newTestIssuer(t, c)
	v.Keys = KeySetSource{other.Keys}
	if _, err := v.Verify(context.Background(), tok); err == nil {
		t.Fatal("the withdrawn key still verifies")
	}
	c.t = c.t.Add(9 * time.Minute)
	again, err := cv.Verify(context.Background(), tok)
	if err != nil {
		t.Fatalf("cached token refused: %v", err)
	}
	if again == id || again.Role != "" || again.Scopes[0] != "inbox.emails" {
		t.Fatalf("the cached identity was shared or changed: %+v", again)
	}
	// A token differing in one character is a different token.
	tampered := tok[:len(tok)-2] + map[bool]string{true: "A", false: "B"}[tok[len(tok)-2] != 'A'] + tok[len(tok)-1:]
	if _, err := cv.Verify(context.Background(), tampered); err == nil {
		t.Fatal("a tampered token was accepted")
	}
	c.t = c.t.Add(time.Minute) // the token's expiry
	if _, err := cv.Verify(context.Background(), tok); err == nil {
		t.Fatal("the cache outlived the token's expiry")
	}
}

// TestCachedVerifierBounds: entries live at most MaxAge (a withdrawn key
// stops being honoured then), failures are not kept, and the cache never
// holds more than Max tokens.
func TestCachedVerifierBounds(t *testing.T) {
	t.Parallel()
	c := &clock{time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	is, _, v := newTestIssuer(t, c)
	cv := &CachedVerifier{Next: v, Now: c.now, MaxAge: time.Minute, Max: 3}
	var toks []string
	for range 5 {
		tok, _, err := is.Issue(grant())
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
		if _, err := cv.Verify(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
		if cv.Len() > 3 {
			t.Fatalf("%d entries, bound 3", cv.Len())
		}
	}
	if _, err := cv.Verify(context.Background(), "not.a.token"); err == nil || !strings.Contains(err.Error(), "invalid token") {
		t.Fatalf("bad token: %v", err)
	}
	if cv.Len() > 3 {
		t.Fatalf("a failure was cached: %d entries", cv.Len())
	}
	other, _, _ := newTestIssuer(t, c)
	v.Keys = KeySetSource{other.Keys}
	c.t = c.t.Add(time.Minute)
	if _, err := cv.Verify(context.Background(), toks[4]); err == nil {
		t.Fatal("an entry outlived MaxAge")
	}
}
