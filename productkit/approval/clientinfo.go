package approval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The bounds of the self-declared client name and version an approval
// keeps, in characters: enough for any real client ("Claude Desktop",
// "Visual Studio Code - Insiders"), short enough that a hostile one cannot
// fill the page.
const (
	maxClientInfoName    = 80
	maxClientInfoVersion = 40
)

// cleanClientInfo is a self-declared clientInfo string as an approval
// keeps it (docs/decisions.md "Kadu: the MCP surface and the
// walkthrough"): valid UTF-8, without control or format characters (NUL,
// line breaks, bidirectional overrides that would reorder the page's
// text), runs of spaces made one, trimmed, and cut to max characters with
// an ellipsis. The page's template escapes the rest (HTML).
func cleanClientInfo(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	if utf8.RuneCountInString(out) > max {
		runes := []rune(out)
		out = strings.TrimSpace(string(runes[:max-1])) + "…"
	}
	return out
}

// declaredClient is how the page names what the client declared itself:
// "name version", or "" when it declared no name.
func declaredClient(a *Approval) string {
	if a.ClientInfoName == "" {
		return ""
	}
	if a.ClientInfoVersion == "" {
		return a.ClientInfoName
	}
	return a.ClientInfoName + " " + a.ClientInfoVersion
}
