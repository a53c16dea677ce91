package webhooks

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kobana/kobana-mcp/platform/safehttp"
)

// ValidationError is bad input to Create, Update, Test or Replay, naming
// the API field it is about ("url", "subscribed_events", "credentials"…),
// so the routes can answer a field error (422) without parsing messages.
type ValidationError struct {
	Field   string
	Message string
}

// Error implements error.
func (e *ValidationError) Error() string {
	return "webhooks: " + e.Field + ": " + e.Message
}

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// Limits of free text, in characters (URL and header values in bytes).
const (
	maxLabelRunes      = 200
	maxExternalIDRunes = 255
	maxURLBytes        = 2048
	maxEvents          = 100
	maxSlugBytes       = 100
	maxCredentialBytes = 4096
)

// slugRE is an event slug: dot-separated lower-case words ("email.processed").
var slugRE = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)

// validSlug reports whether s names an event.
func validSlug(s string) bool { return len(s) <= maxSlugBytes && slugRE.MatchString(s) }

// cleanEvents validates a subscription list and returns it without
// duplicates, in the order given: each entry is a slug, "*", or a prefix
// followed by ".*".
func cleanEvents(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, invalid("subscribed_events", "subscribe to at least one event (a slug, \"*\" or \"prefix.*\")")
	}
	if len(in) > maxEvents {
		return nil, invalid("subscribed_events", "at most %d entries", maxEvents)
	}
	out := make([]string, 0, len(in))
	for _, e := range in {
		e = strings.TrimSpace(e)
		ok := e == "*" || validSlug(e)
		if p, wild := strings.CutSuffix(e, ".*"); wild {
			ok = validSlug(p)
		}
		if !ok {
			return nil, invalid("subscribed_events", "%q is not an event slug, \"*\" or \"prefix.*\" (lower-case words separated by dots)", e)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// matches reports whether a subscription list selects the event slug.
func matches(subscribed []string, slug string) bool {
	for _, e := range subscribed {
		if e == "*" || e == slug {
			return true
		}
		if p, ok := strings.CutSuffix(e, ".*"); ok && strings.HasPrefix(slug, p+".") {
			return true
		}
	}
	return false
}

// cleanText trims s and checks its length and that it has no control
// characters.
func cleanText(field, s string, maxRunes int, required bool) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" && required {
		return "", invalid(field, "is required")
	}
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxRunes {
		return "", invalid(field, "must be valid text of at most %d characters", maxRunes)
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		return "", invalid(field, "must not contain control characters")
	}
	return s, nil
}

// checkURL validates a target URL: absolute http(s), a host, no user
// information or fragment. Unless private targets are allowed it must be
// https and its host must not be an address the SSRF policy refuses, nor
// localhost; names are resolved (and checked again) only when connecting.
func checkURL(raw string, allowPrivate bool) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", invalid("url", "is required")
	}
	if len(raw) > maxURLBytes {
		return "", invalid("url", "must be at most %d bytes", maxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", invalid("url", "is not a valid URL")
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return "", invalid("url", "must be an absolute https:// URL")
	case u.Opaque != "" || u.Hostname() == "":
		return "", invalid("url", "must name a host")
	case u.User != nil:
		return "", invalid("url", "must not contain user information; use auth and credentials")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "", invalid("url", "must not contain a fragment")
	}
	if allowPrivate {
		return raw, nil
	}
	if u.Scheme != "https" {
		return "", invalid("url", "must use https")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "", invalid("url", "must not point to this machine")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if err := (safehttp.Policy{}).CheckAddr(ip); err != nil {
			return "", invalid("url", "must not point to a private, loopback or reserved address")
		}
	}
	return raw, nil
}

// reservedHeaders are request headers a custom auth header may not
// replace: the ones the delivery itself sets or HTTP owns.
var reservedHeaders = []string{
	"Host", "Content-Type", "Content-Length", "Transfer-Encoding", "Connection",
	"User-Agent", "Te", "Trailer", "Upgrade", "Keep-Alive", "Proxy-Authorization",
}

// checkCredentials validates the credentials an auth kind needs and
// returns only those (the others cleared).
func checkCredentials(auth string, c Credentials) (Credentials, error) {
	switch auth {
	case AuthNone:
		return Credentials{}, nil
	case AuthBasic:
		if c.Username == "" {
			return Credentials{}, invalid("credentials", "basic auth needs a username")
		}
		if strings.Contains(c.Username, ":") || !headerSafe(c.Username) || !headerSafe(c.Password) {
			return Credentials{}, invalid("credentials", "the username must not contain \":\", and neither it nor the password control characters")
		}
		return Credentials{Username: c.Username, Password: c.Password}, nil
	case AuthBearer:
		if c.Token == "" || strings.ContainsFunc(c.Token, unicode.IsSpace) || !headerSafe(c.Token) {
			return Credentials{}, invalid("credentials", "bearer auth needs a token without spaces or control characters")
		}
		return Credentials{Token: c.Token}, nil
	case AuthHeader:
		name := strings.TrimSpace(c.HeaderName)
		if !tokenRE.MatchString(name) {
			return Credentials{}, invalid("credentials", "header auth needs a valid header name")
		}
		canon := http.CanonicalHeaderKey(name)
		if slices.Contains(reservedHeaders, canon) || strings.HasPrefix(canon, "X-Kobana-") {
			return Credentials{}, invalid("credentials", "the header %s is set by the delivery itself; choose another name", canon)
		}
		if c.HeaderValue == "" || !headerSafe(c.HeaderValue) {
			return Credentials{}, invalid("credentials", "header auth needs a value without control characters")
		}
		return Credentials{HeaderName: canon, HeaderValue: c.HeaderValue}, nil
	}
	return Credentials{}, invalid("auth", "must be one of none, basic, bearer, header")
}

// tokenRE is an HTTP field name (RFC 9110 token).
var tokenRE = regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]{1,100}$")

// headerSafe reports whether s may be sent in a header value.
func headerSafe(s string) bool {
	return len(s) <= maxCredentialBytes && utf8.ValidString(s) &&
		!strings.ContainsFunc(s, func(r rune) bool { return r != '\t' && unicode.IsControl(r) })
}

func checkStatus(s string) error {
	if s != StatusActive && s != StatusInactive {
		return invalid("status", "must be active or inactive")
	}
	return nil
}
