package webhooks

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

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
// https and its host must pass checkHost; names are resolved (and the
// address checked again) only when connecting.
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
	if err := checkHost(u.Hostname()); err != nil {
		return "", err
	}
	return raw, nil
}

// checkHost refuses a target host that is not a public internet name or
// address: this machine, an address the SSRF policy refuses however it is
// spelt, an internal or cloud metadata name, or something that is no host
// name at all.
//
// Addresses are read the way the URL standard (and so browsers) and
// inet_aton (and so the C resolver) read them, not only as netip does: a
// host whose last label is a number is an IPv4 address, of one to four
// parts, each decimal, hexadecimal (0x…) or octal (0…), the last filling
// the remaining bytes — 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 are
// all 127.0.0.1. Which resolvers read such a host so differs between
// libraries, so anything but the plain a.b.c.d form is refused even for a
// public address. Non-ASCII hosts are first mapped as IDNA does (NFKC,
// lower case, ideographic full stops as dots), since the HTTP client
// converts them the same way before connecting: full-width digits spell
// 127.0.0.1 too.
//
// The check at connect time (the delivery client's dialer) still decides:
// a public-looking name can resolve to anything.
func checkHost(host string) error {
	host = mapHost(host)
	if ip, err := netip.ParseAddr(host); err == nil { // IPv6 (brackets removed by url), or plain IPv4
		return checkAddr(ip)
	}
	host = strings.TrimSuffix(host, ".")
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || strings.ContainsFunc(l, func(r rune) bool {
			return r < utf8.RuneSelf && !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		}) {
			return invalid("url", "must name a valid host")
		}
	}
	if endsInNumber(labels[len(labels)-1]) {
		ip, ok := parseIPv4(labels)
		if !ok {
			return invalid("url", "must name a valid host (%q ends in a number but is not an IPv4 address)", host)
		}
		if err := checkAddr(ip); err != nil {
			return err
		}
		if host != ip.String() {
			return invalid("url", "must write an IPv4 address as four decimal numbers (%s), the one form every resolver reads alike", ip)
		}
		return nil // a.b.c.d. (with the root's dot)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return invalid("url", "must not point to this machine")
	}
	if len(labels) == 1 {
		return invalid("url", "must name a fully qualified host (a single-label name such as %q is resolved through the server's own search domains)", host)
	}
	if slices.Contains(metadataHosts, host) {
		return invalid("url", "must not point to a cloud metadata service")
	}
	for _, suffix := range internalSuffixes {
		if host == suffix || strings.HasSuffix(host, "."+suffix) {
			return invalid("url", "must not point to an internal name (.%s names only resolve inside a private network)", suffix)
		}
	}
	return nil
}

// checkAddr refuses what the SSRF policy refuses, and what it would let
// through only because it cannot tell the address apart from a public
// one: the cloud metadata addresses outside the private ranges, and IPv6
// forms that embed an IPv4 address for old translation schemes
// (IPv4-compatible ::a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d), or a
// zone (an interface of this machine).
func checkAddr(ip netip.Addr) error {
	if ip.Zone() != "" || (safehttp.Policy{}).CheckAddr(ip) != nil || isMetadataAddr(ip) ||
		ipv4Compatible.Contains(ip) || ipv4Translated.Contains(ip) {
		return invalid("url", "must not point to a private, loopback, link-local, reserved or metadata address")
	}
	return nil
}

// The IPv6 ranges that embed an IPv4 address for translation schemes
// other than IPv4-mapped (which the SSRF policy reads as the IPv4 address
// it carries): IPv4-compatible (RFC 4291, deprecated) and IPv4-translated
// (RFC 2765).
var (
	ipv4Compatible = netip.MustParsePrefix("::/96")
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
)

// metadataAddrs are cloud metadata and host services reachable from
// inside a cloud at addresses the SSRF policy's ranges do not cover
// (169.254.169.254, fd00:ec2::254, 100.100.100.200 and 192.0.0.192 are
// link-local, unique local, shared or reserved, and refused there).
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("168.63.129.16"), // Azure's host services (WireServer)
}

// isMetadataAddr reports whether ip is one of metadataAddrs.
func isMetadataAddr(ip netip.Addr) bool { return slices.Contains(metadataAddrs, ip.Unmap()) }

// metadataHosts are the names of cloud metadata services that are not
// under one of internalSuffixes.
var metadataHosts = []string{
	"metadata.goog", // Google Cloud (also metadata.google.internal)
}

// internalSuffixes are top-level names that only resolve inside a private
// network: special-use names (RFC 6761, 6762, 8375), ICANN's private-use
// .internal (where clouds put their metadata services:
// metadata.google.internal, instance-data.ec2.internal), Kubernetes'
// service names, and names ICANN will never delegate because private
// networks use them.
var internalSuffixes = []string{
	"local", "internal", "home.arpa", "localdomain", "svc", "intranet", "lan", "home", "corp",
}

// mapHost lower-cases host and maps a non-ASCII one as IDNA's lookup does
// before it is resolved: compatibility forms (full-width digits and
// letters) to their plain ones, and the ideographic full stops to dots.
func mapHost(host string) string {
	host = strings.ToLower(host)
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			host = strings.ToLower(norm.NFKC.String(host))
			return strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".").Replace(host)
		}
	}
	return host
}

// endsInNumber reports whether a host's last label makes it an IPv4
// address under the URL standard: all decimal digits, or 0x followed by
// hexadecimal digits.
func endsInNumber(label string) bool {
	if l, ok := strings.CutPrefix(label, "0x"); ok {
		return !strings.ContainsFunc(l, func(r rune) bool { return !unicode.Is(unicode.ASCII_Hex_Digit, r) })
	}
	return label != "" && !strings.ContainsFunc(label, func(r rune) bool { return r < '0' || r > '9' })
}

// parseIPv4 reads labels as the URL standard's IPv4 parser (and
// inet_aton) does: one to four numbers, decimal, 0x-hexadecimal or
// 0-octal; every number but the last is one byte, the last fills the
// bytes that remain.
func parseIPv4(labels []string) (netip.Addr, bool) {
	if len(labels) > 4 {
		return netip.Addr{}, false
	}
	var parts []uint64
	for _, l := range labels {
		base, digits := 10, l
		switch {
		case strings.HasPrefix(l, "0x"):
			base, digits = 16, l[2:]
		case len(l) > 1 && l[0] == '0':
			base, digits = 8, l[1:]
		}
		n := uint64(0)
		if digits != "" {
			var err error
			if n, err = strconv.ParseUint(digits, base, 64); err != nil {
				return netip.Addr{}, false
			}
		}
		parts = append(parts, n)
	}
	last := parts[len(parts)-1]
	if last >= 1<<(8*(5-len(parts))) {
		return netip.Addr{}, false
	}
	v := last
	for i, p := range parts[:len(parts)-1] {
		if p > 255 {
			return netip.Addr{}, false
		}
		v |= p << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
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
