package contact

import "github.com/kobana/kobana-mcp/platform/address"

// ErrEmailInvalid is every refused e-mail address; the wrapped message
// says why. It is platform/address's error, so callers of either package
// test for the same value.
var ErrEmailInvalid = address.ErrEmailInvalid

// ParseEmail checks that s is one plain e-mail address and returns it
// normalised. It is platform/address.ParseEmail — the one parser every
// product uses — kept here so Dunning reads a debtor's contacts from one
// package.
func ParseEmail(s string) (string, error) { return address.ParseEmail(s) }
