package safename

import (
	"strings"
	"unicode"
)

// Hidden reports whether r is removed by Display and refused by File:
// a control character (Unicode Cc: C0, DEL, C1), a format character
// (Unicode Cf: the bidi embeddings, overrides, isolates and marks, zero-
// width joiners, the BOM), or U+FFFD, which stands for bytes that were
// not text.
func Hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar
}

// Display is s as it may be shown to a person: Hidden characters
// removed, surrounding spaces trimmed. The OAuth approval page shows a
// client's name through it, so a name cannot reorder itself with a bidi
// override or fake a second line.
func Display(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if Hidden(r) {
			return -1
		}
		return r
	}, s))
}
