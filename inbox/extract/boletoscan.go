package extract

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kobana/kobana-mcp/platform/brazil"
)

// Boleto is a boleto found in the e-mail, every check digit verified
// (brazil.Boleto, whose FoundAs says which form was in the e-mail), and
// the parts it was found in. Sources comes last, after the decoded
// fields, as it always has in the extractor's JSON.
type Boleto struct {
	brazil.Boleto
	Sources []string `json:"sources"`
}

// InvalidBoleto is a number shaped like a boleto line or barcode whose
// check digits do not verify: a typo, an OCR slip or a forgery. It is
// never reported as a Boleto. Kind is brazil.KindBank or
// brazil.KindCollection, by its shape; Reason is brazil.DecodeBoleto's
// error.
type InvalidBoleto struct {
	Kind    string   `json:"kind"`
	Digits  string   `json:"digits"`
	Reason  string   `json:"reason"`
	Sources []string `json:"sources"`
}

// A boleto in text is a run of digit groups separated by the usual
// formatting — dots, hyphens, spaces, line breaks — as in
// "23793.38128 60000.000003 00000.000400 1 84340000012345". The scanner
// collects such chains, then tries every window of 48, 47 or 44 digits
// that starts and ends on a group boundary: a window whose check digits
// verify is a boleto; one that has a boleto's exact shape but fails is an
// invalid boleto; anything else is ignored (phone numbers, CNPJs, dates).

const (
	// maxGroupGap is how many separator characters may sit between two
	// digit groups of one chain (PDF text often has runs of spaces).
	maxGroupGap = 8
	// maxGroupNewlines is how many line breaks one gap may contain.
	maxGroupNewlines = 2
	// nfeLookBehind is how far before a 44-digit number the word "chave"
	// marks it as an NF-e access key (also 44 digits, also mod 11), not a
	// barcode.
	nfeLookBehind = 80
)

// span is a byte range of a text.
type span struct{ start, end int }

type digitGroup struct {
	span
	digits string
}

// boletoHit is one boleto (or invalid boleto) found in a text.
type boletoHit struct {
	span
	boleto  brazil.Boleto
	invalid *InvalidBoleto
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isGroupSeparator reports whether r may separate the digit groups of a
// boleto line.
func isGroupSeparator(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', '.', '-', '\u00a0', '\u2009', '\u202f', '\u2007':
		return true
	}
	return false
}

// digitChains splits text into chains of digit groups.
func digitChains(text string) [][]digitGroup {
	var chains [][]digitGroup
	var cur []digitGroup
	gap, newlines := 0, 0
	flush := func() {
		if len(cur) > 0 {
			chains = append(chains, cur)
			cur = nil
		}
	}
	for i := 0; i < len(text); {
		if isDigit(text[i]) {
			j := i
			for j < len(text) && isDigit(text[j]) {
				j++
			}
			cur = append(cur, digitGroup{span{i, j}, text[i:j]})
			gap, newlines = 0, 0
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if len(cur) > 0 {
			if isGroupSeparator(r) {
				gap++
				if r == '\n' {
					newlines++
				}
				if gap > maxGroupGap || newlines > maxGroupNewlines {
					flush()
				}
			} else {
				flush()
			}
		}
		i += size
	}
	flush()
	return chains
}

// findBoletos returns the boletos and invalid boletos in text, in order.
func findBoletos(text string, ref time.Time) []boletoHit {
	var hits []boletoHit
	for _, ch := range digitChains(text) {
		for i := 0; i < len(ch); {
			hit, next := tryWindows(text, ch, i, ref)
			if hit != nil {
				hits = append(hits, *hit)
				i = next
				continue
			}
			i++
		}
	}
	return hits
}

// tryWindows tries the 48-, 47- and 44-digit windows starting at group i.
// It returns the first valid boleto, else the first window with a
// boleto's shape as invalid, and the group index after the window.
func tryWindows(text string, ch []digitGroup, i int, ref time.Time) (*boletoHit, int) {
	var invalid *boletoHit
	invalidNext := 0
	for _, size := range []int{48, 47, 44} {
		j, ok := windowEnd(ch, i, size)
		if !ok {
			continue
		}
		var b strings.Builder
		lens := make([]int, 0, j-i+1)
		for _, g := range ch[i : j+1] {
			b.WriteString(g.digits)
			lens = append(lens, len(g.digits))
		}
		digits := b.String()
		sp := span{ch[i].start, ch[j].end}
		if !plausible(text, sp.start, digits, lens) {
			continue
		}
		bol, err := brazil.DecodeBoleto(digits, ref)
		if err == nil {
			return &boletoHit{span: sp, boleto: bol}, j + 1
		}
		if invalid == nil && boletoShaped(digits, lens) {
			kind := brazil.KindBank
			if digits[0] == '8' && size != 47 {
				kind = brazil.KindCollection
			}
			invalid = &boletoHit{span: sp, invalid: &InvalidBoleto{Kind: kind, Digits: digits, Reason: err.Error()}}
			invalidNext = j + 1
		}
	}
	return invalid, invalidNext
}

// windowEnd returns the group j at which groups i..j hold exactly size
// digits.
func windowEnd(ch []digitGroup, i, size int) (int, bool) {
	n := 0
	for j := i; j < len(ch); j++ {
		n += len(ch[j].digits)
		if n == size {
			return j, true
		}
		if n > size {
			break
		}
	}
	return 0, false
}

// plausible filters windows that cannot be a boleto whatever their check
// digits: a 48-digit line starts with 8, and a 44-digit barcode is printed
// as one unbroken number; a bank barcode has currency 9 and is not an NF-e
// access key (labelled "chave de acesso").
func plausible(text string, start int, digits string, lens []int) bool {
	switch len(digits) {
	case 48:
		return digits[0] == '8'
	case 44:
		if len(lens) != 1 {
			return false
		}
		if digits[0] == '8' {
			return true
		}
		return digits[3] == '9' && !nfeKeyContext(text, start)
	}
	return true
}

// nfeKeyContext reports whether "chave" appears shortly before start.
func nfeKeyContext(text string, start int) bool {
	from := max(0, start-nfeLookBehind)
	return strings.Contains(strings.ToLower(text[from:start]), "chave")
}

// boletoShaped reports whether a window that failed validation is laid
// out exactly like a boleto, so it is worth reporting as invalid.
func boletoShaped(digits string, lens []int) bool {
	switch len(digits) {
	case 47:
		return slices.Equal(lens, []int{47}) || slices.Equal(lens, []int{5, 5, 5, 6, 5, 6, 1, 14})
	case 48:
		return slices.Equal(lens, []int{48}) || slices.Equal(lens, []int{11, 1, 11, 1, 11, 1, 11, 1}) ||
			slices.Equal(lens, []int{12, 12, 12, 12})
	case 44:
		return len(lens) == 1
	}
	return false
}
