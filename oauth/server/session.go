package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"
)

// sessions are the browser sessions of the sign-in and consent pages: a
// cookie with a random id, the row in Storage (so any replica reads it),
// and the per-form CSRF tokens derived from the row's secret.
type sessions struct {
	st         Storage
	issuer     string
	cookieName string
	secure     bool
	// anonTTL bounds a session nobody signed in to (it exists to carry the
	// sign-in form's CSRF token); authTTL a signed-in one.
	anonTTL, authTTL time.Duration
}

func newSessions(st Storage, issuer string, secure bool, authTTL time.Duration) *sessions {
	// Cookies are not isolated by port: the three products on 127.0.0.1
	// would share one name. Each issuer gets its own.
	h := sha256.Sum256([]byte(issuer))
	name := "kobana_as_" + hex.EncodeToString(h[:4])
	if secure {
		name = "__Host-" + name
	}
	return &sessions{st: st, issuer: issuer, cookieName: name, secure: secure, anonTTL: time.Hour, authTTL: authTTL}
}

func hashID(id string) string {
	h := sha256.Sum256([]byte(id))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails since Go 1.24
	return b
}

// load returns the request's session, or nil when it has none that is
// valid here.
func (s *sessions) load(r *http.Request) (*BrowserSession, error) {
	c, err := r.Cookie(s.cookieName)
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return nil, nil
	}
	bs, err := s.st.GetSession(r.Context(), hashID(c.Value))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if bs.Issuer != s.issuer || !bs.ExpiresAt.After(time.Now()) {
		return nil, nil
	}
	return bs, nil
}

// ensure returns the request's session, making an anonymous one when it
// has none.
func (s *sessions) ensure(w http.ResponseWriter, r *http.Request) (*BrowserSession, error) {
	bs, err := s.load(r)
	if err != nil || bs != nil {
		return bs, err
	}
	return s.create(r.Context(), w, nil)
}

// create stores a new session — signed in as p when p is set — and sets
// its cookie.
func (s *sessions) create(ctx context.Context, w http.ResponseWriter, p *Person) (*BrowserSession, error) {
	id := base64.RawURLEncoding.EncodeToString(randomBytes(32))
	now := time.Now().UTC().Truncate(time.Microsecond)
	bs := &BrowserSession{IDHash: hashID(id), Issuer: s.issuer, CSRFSecret: randomBytes(32), CreatedAt: now, ExpiresAt: now.Add(s.anonTTL)}
	if p != nil {
		bs.UserID, bs.Email, bs.AuthenticatedAt, bs.ExpiresAt = p.UserID, p.Email, now, now.Add(s.authTTL)
	}
	if err := s.st.CreateSession(ctx, bs); err != nil {
		return nil, err
	}
	http.SetCookie(w, &http.Cookie{
		Name: s.cookieName, Value: id, Path: "/", Expires: bs.ExpiresAt,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	})
	return bs, nil
}

// signIn replaces the session old (if any) with a new, signed-in one: a
// fresh id and CSRF secret, so nothing learned before sign-in (a planted
// cookie, a token in a page) works after it.
func (s *sessions) signIn(ctx context.Context, w http.ResponseWriter, old *BrowserSession, p *Person) (*BrowserSession, error) {
	if old != nil {
		if err := s.st.DeleteSession(ctx, old.IDHash); err != nil {
			return nil, err
		}
	}
	return s.create(ctx, w, p)
}

// Forms that carry a CSRF token.
const (
	formSignIn  = "sign-in"
	formConsent = "consent"
)

// csrfToken is the token a form of the session carries: an HMAC of the
// form's name and what it is about (the authorization request, for
// consent), keyed by the session's secret. A token of another session, of
// another form or for another request does not verify.
func csrfToken(bs *BrowserSession, form, binding string) string {
	m := hmac.New(sha256.New, bs.CSRFSecret)
	m.Write([]byte(form))
	m.Write([]byte{0})
	m.Write([]byte(binding))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func checkCSRF(bs *BrowserSession, form, binding, token string) bool {
	if bs == nil || token == "" || len(token) > 128 {
		return false
	}
	want := csrfToken(bs, form, binding)
	return hmac.Equal([]byte(want), []byte(strings.TrimSpace(token)))
}
