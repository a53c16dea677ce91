package address

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
)

// ErrEmailInvalid is every refused e-mail address; the wrapped message
// says why.
var ErrEmailInvalid = errors.New("not a valid e-mail address")

// domainProfile is IDNA's lookup profile (UTS #46 mapping, the bidi rule,
// letters, digits and hyphens only) plus DNS lengths: 63 octets a label,
// 253 a name.
var domainProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.StrictDomainName(true),
	idna.VerifyDNSLength(true),
)

// Length limits of RFC 5321 §4.5.3.1: 64 octets for the local part, 254
// for a whole address that fits a forward path.
const (
	maxLocalPart = 64
	maxAddress   = 254
)

// ParseEmail checks that s is one plain e-mail address, local@domain,
// and returns it normalised: surrounding spaces removed, the domain in
// lower case and, for an internationalised domain, in its ASCII (IDNA)
// form. The local part keeps its case (RFC 5321 lets a server tell
// "Maria" from "maria").
//
// It refuses what net/mail would accept but no product should send to: a
// display name or angle brackets ("Maria <m@x.com>"), comments, several
// addresses, control characters (CR, LF, NUL, bidi controls), quoted
// local parts, non-ASCII local parts (they need SMTPUTF8, which receivers
// may lack), IP-literal domains and domains without a dot (localhost).
func ParseEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxAddress {
		return "", fmt.Errorf("%w: longer than %d characters", ErrEmailInvalid, maxAddress)
	}
	for _, r := range s {
		// CR and LF end a header line and start another ("Bcc: …"); NUL
		// ends a C string; bidi and other format characters make the
		// address read differently from what it is.
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", fmt.Errorf("%w: contains the control character %U (got %q)", ErrEmailInvalid, r, s)
		}
	}
	if strings.ContainsAny(s, ",;") {
		return "", fmt.Errorf("%w: give one address, not several (got %q)", ErrEmailInvalid, s)
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return "", fmt.Errorf("%w (got %q)", ErrEmailInvalid, s)
	}
	// A bare addr-spec parses to itself; a display name, brackets, a
	// comment or quoting make the two differ.
	if a.Name != "" || a.Address != s {
		return "", fmt.Errorf("%w: give the address alone, without a name, brackets, quotes or comments (got %q)", ErrEmailInvalid, s)
	}
	at := strings.LastIndexByte(s, '@')
	local, domain := s[:at], s[at+1:]
	if len(local) > maxLocalPart {
		return "", fmt.Errorf("%w: the part before @ is longer than %d characters", ErrEmailInvalid, maxLocalPart)
	}
	for i := 0; i < len(local); i++ {
		if local[i] >= 0x80 {
			return "", fmt.Errorf("%w: the part before @ must be ASCII (got %q)", ErrEmailInvalid, s)
		}
	}
	if strings.HasPrefix(domain, "[") {
		return "", fmt.Errorf("%w: the domain must be a name, not an IP address (got %q)", ErrEmailInvalid, s)
	}
	ascii, err := domainProfile.ToASCII(domain)
	if err != nil || !strings.Contains(ascii, ".") || strings.HasSuffix(ascii, ".") {
		return "", fmt.Errorf("%w: %q is not a domain name", ErrEmailInvalid, domain)
	}
	out := local + "@" + strings.ToLower(ascii)
	if len(out) > maxAddress {
		return "", fmt.Errorf("%w: longer than %d characters", ErrEmailInvalid, maxAddress)
	}
	return out, nil
}
