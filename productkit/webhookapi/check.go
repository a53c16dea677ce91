package webhookapi

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/rest"
)

// checkURL catches what is plainly not a delivery target; the webhook
// service has the last word on where deliveries may go (its SSRF policy).
func checkURL(raw string) []rest.FieldError {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "":
		return []rest.FieldError{{Field: "url", Message: "must be an absolute http or https URL"}}
	case u.Scheme != "http" && u.Scheme != "https":
		return []rest.FieldError{{Field: "url", Message: "must use http or https"}}
	case u.User != nil:
		return []rest.FieldError{{Field: "url", Message: "must not hold credentials: use auth"}}
	}
	return nil
}

// checkEvents accepts the catalog's slugs, "*" and "prefix.*" where some
// slug of the catalog has that prefix: a subscription to an event the
// product never emits is a mistake the client should hear about.
func (x *api) checkEvents(events []string) []rest.FieldError {
	if len(events) == 0 {
		return []rest.FieldError{{Field: "subscribed_events", Message: "must list at least one event (\"*\" for all)"}}
	}
	var out []rest.FieldError
	for i, ev := range events {
		if !x.knownPattern(ev) {
			out = append(out, rest.FieldError{Field: fmt.Sprintf("subscribed_events.%d", i),
				Message: fmt.Sprintf("%q is not an event: use one of %s, \"*\" or \"prefix.*\"", ev, strings.Join(x.o.Events, ", "))})
		}
	}
	return out
}

func (x *api) knownPattern(ev string) bool {
	if ev == "*" || x.known(ev) {
		return true
	}
	prefix, ok := strings.CutSuffix(ev, ".*")
	if !ok || prefix == "" {
		return false
	}
	for _, slug := range x.o.Events {
		if strings.HasPrefix(slug, prefix+".") {
			return true
		}
	}
	return false
}

// credentialFields are the credential fields each auth kind uses.
var credentialFields = map[string][]string{
	webhooks.AuthNone:   nil,
	webhooks.AuthBasic:  {"username", "password"},
	webhooks.AuthBearer: {"token"},
	webhooks.AuthHeader: {"header_name", "header_value"},
}

// checkCredentials requires exactly the credential fields auth uses,
// non-empty, and returns them.
func checkCredentials(auth string, in credentialsIn) (webhooks.Credentials, []rest.FieldError) {
	given := map[string]*string{"username": in.Username, "password": in.Password, "token": in.Token, "header_name": in.HeaderName, "header_value": in.HeaderValue}
	var out []rest.FieldError
	for _, name := range []string{"header_name", "header_value", "password", "token", "username"} {
		used := slices.Contains(credentialFields[auth], name)
		v := given[name]
		switch {
		case used && (v == nil || *v == ""):
			out = append(out, rest.FieldError{Field: name, Message: "is required with auth " + auth})
		case !used && v != nil:
			out = append(out, rest.FieldError{Field: name, Message: "is not used with auth " + auth})
		}
	}
	val := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	c := webhooks.Credentials{Username: val(in.Username), Password: val(in.Password), Token: val(in.Token), HeaderName: val(in.HeaderName), HeaderValue: val(in.HeaderValue)}
	if auth == webhooks.AuthBasic && strings.Contains(c.Username, ":") {
		out = append(out, rest.FieldError{Field: "username", Message: "must not contain ':'"})
	}
	if auth == webhooks.AuthHeader && c.HeaderName != "" {
		if msg := checkHeaderName(c.HeaderName); msg != "" {
			out = append(out, rest.FieldError{Field: "header_name", Message: msg})
		}
	}
	if strings.ContainsAny(c.HeaderValue+c.Token+c.Username+c.Password, "\r\n\x00") {
		out = append(out, rest.FieldError{Field: "", Message: "credentials must not contain line breaks or NUL"})
	}
	slices.SortFunc(out, func(a, b rest.FieldError) int { return strings.Compare(a.Field, b.Field) })
	return c, out
}

// checkHeaderName accepts an HTTP field name (RFC 9110 token) that the
// delivery does not set itself.
func checkHeaderName(name string) string {
	for _, r := range name {
		if r > 0x7e || r <= 0x20 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return "must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"
		}
	}
	switch c := strings.ToLower(name); {
	case strings.HasPrefix(c, "x-kobana-"), c == "host", c == "content-type", c == "content-length", c == "user-agent", c == "transfer-encoding", c == "connection":
		return "is set by the delivery itself: pick another header"
	}
	return ""
}
