package extract

import (
	"regexp"
	"strconv"
	"strings"
)

// Amount is a BRL amount written in the text, as a decimal string
// ("1234.56") and in cents.
type Amount struct {
	Value   string   `json:"value"`
	Cents   int64    `json:"cents"`
	Sources []string `json:"sources"`
}

// The Brazilian format: thousands with dots, two decimals after a comma.
// An amount counts when it follows "R$" or, without the symbol, a word
// that announces an amount (valor, total…) on the same line.
var (
	brlSymbolRe  = regexp.MustCompile(`R\$[ \t]*(-?)([0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+),([0-9]{2})\b`)
	brlKeywordRe = regexp.MustCompile(`(?i)\b(?:valor|total|montante|quantia|import[aâ]ncia|pagar|cobrado|saldo|pre[çc]o)\b[^0-9\n]{0,40}?([0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+),([0-9]{2})\b`)
)

// maxAmountDigits bounds the integer part so cents fit in an int64 with
// room (and absurd numbers are not amounts).
const maxAmountDigits = 13

type amountHit struct {
	span
	cents int64
}

// findAmounts returns the BRL amounts in text, in order (duplicates
// included; the collector merges them). Negative amounts are skipped.
func findAmounts(text string) []amountHit {
	var hits []amountHit
	seen := map[int]bool{}
	for _, m := range brlSymbolRe.FindAllStringSubmatchIndex(text, -1) {
		if m[3] > m[2] { // a minus sign
			continue
		}
		if c, ok := brlCents(text[m[4]:m[5]], text[m[6]:m[7]]); ok {
			seen[m[4]] = true
			hits = append(hits, amountHit{span{m[0], m[1]}, c})
		}
	}
	for _, m := range brlKeywordRe.FindAllStringSubmatchIndex(text, -1) {
		if seen[m[2]] {
			continue
		}
		if m[2] > 0 && text[m[2]-1] == '-' {
			continue
		}
		if c, ok := brlCents(text[m[2]:m[3]], text[m[4]:m[5]]); ok {
			hits = append(hits, amountHit{span{m[2], m[1]}, c})
		}
	}
	return hits
}

func brlCents(whole, frac string) (int64, bool) {
	whole = strings.ReplaceAll(whole, ".", "")
	if len(whole) > maxAmountDigits {
		return 0, false
	}
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return w*100 + f, true
}
