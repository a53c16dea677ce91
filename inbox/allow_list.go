package inbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kobana/kobana-mcp/rest"
)

// What an inbox's allow-list (allowed_recipients) may hold: the inbox
// operations check a whole list (inboxes.go), the recipients operations
// one entry (inbox_recipients.go), by the same rules.

// maxRecipients bounds an inbox's allow-list: it is read for every
// received e-mail.
const maxRecipients = 1000

// normaliseRecipient checks one allow-list entry, an address
// ("ap@supplier.example") or a whole domain ("@supplier.example"), and
// returns it lower-cased; "" and a message when it is neither.
func normaliseRecipient(entry string) (string, string) {
	e := strings.ToLower(strings.TrimSpace(entry))
	if domain, ok := strings.CutPrefix(e, "@"); ok {
		if !validDomain(domain) {
			return "", "must be an e-mail address or @domain"
		}
		return e, ""
	}
	if _, _, ok := splitAddress(e); !ok {
		return "", "must be an e-mail address or @domain"
	}
	return e, ""
}

// normaliseRecipients cleans an allow-list: entries lower-cased, the
// duplicates dropped (first one kept), each bad entry a field error named
// after its position.
func normaliseRecipients(field string, list []string) ([]string, []rest.FieldError) {
	out := make([]string, 0, len(list))
	var bad []rest.FieldError
	if len(list) > maxRecipients {
		return nil, []rest.FieldError{{Field: field, Message: fmt.Sprintf("may have at most %d entries", maxRecipients)}}
	}
	for i, entry := range list {
		e, msg := normaliseRecipient(entry)
		if msg != "" {
			bad = append(bad, rest.FieldError{Field: fmt.Sprintf("%s.%d", field, i), Message: msg})
			continue
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, bad
}

// splitAddress splits a lower-cased address into its local part and
// domain, reporting whether it is a plausible address: one @, a non-empty
// local part of at most 64 printable characters without spaces, a valid
// domain.
func splitAddress(addr string) (local, domain string, ok bool) {
	local, domain, found := strings.Cut(addr, "@")
	if !found || local == "" || len(local) > 64 || len(addr) > 254 || strings.ContainsAny(local, " \t\r\n<>()[],;:\\\"@") || !validDomain(domain) {
		return "", "", false
	}
	for _, r := range local {
		if r < 0x21 || r > 0x7e {
			return "", "", false
		}
	}
	return local, domain, true
}

// validDomain reports whether d is a host name of dot-separated labels of
// letters, digits and inner hyphens.
func validDomain(d string) bool {
	if d == "" || len(d) > 253 {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
