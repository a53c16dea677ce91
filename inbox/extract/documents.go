package extract

import (
	"regexp"
	"strings"
)

// Document is a CNPJ or CPF whose check digits verify. Number is the
// normalised form (14 or 11 characters, letters upper-case), Formatted
// the usual punctuation ("12.345.678/0001-95", "123.456.789-09").
// Alphanumeric marks the CNPJ format introduced in 2026, with letters in
// the first 12 positions.
type Document struct {
	Kind         string   `json:"kind"`
	Number       string   `json:"number"`
	Formatted    string   `json:"formatted"`
	Alphanumeric bool     `json:"alphanumeric"`
	Sources      []string `json:"sources"`
}

// Document kinds.
const (
	KindCNPJ = "cnpj"
	KindCPF  = "cpf"
)

var (
	cnpjWeights1 = []int{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
	cnpjWeights2 = []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
)

// ValidCNPJ reports whether s (formatted or not, numeric or alphanumeric)
// is a CNPJ whose two check digits verify. Each of the first 12
// characters counts as its ASCII code minus 48 (digits 0–9, A=17 … Z=42),
// which makes the 2026 alphanumeric rule identical to the numeric one for
// digit-only numbers. Numbers of one repeated digit are rejected.
func ValidCNPJ(s string) bool {
	return validCNPJ(normalizeDocument(s))
}

// ValidCPF reports whether s (formatted or not) is a CPF whose two check
// digits verify. Numbers of one repeated digit are rejected.
func ValidCPF(s string) bool {
	return validCPF(normalizeDocument(s))
}

// normalizeDocument drops the punctuation of a CNPJ/CPF and upper-cases.
func normalizeDocument(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if (r >= '0' && r <= '9') || (r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func validCNPJ(n string) bool {
	if len(n) != 14 || !allDigits(n[12:]) || repeated(n) {
		return false
	}
	for i := 0; i < 12; i++ {
		c := n[i]
		if !isDigit(c) && (c < 'A' || c > 'Z') {
			return false
		}
	}
	dv := func(s string, w []int) byte {
		sum := 0
		for i := range w {
			sum += int(s[i]-'0') * w[i]
		}
		r := sum % 11
		if r < 2 {
			return '0'
		}
		return byte('0' + 11 - r)
	}
	return n[12] == dv(n, cnpjWeights1) && n[13] == dv(n, cnpjWeights2)
}

func validCPF(n string) bool {
	if len(n) != 11 || !allDigits(n) || repeated(n) {
		return false
	}
	dv := func(k int) byte {
		sum := 0
		for i := 0; i < k; i++ {
			sum += int(n[i]-'0') * (k + 1 - i)
		}
		r := sum * 10 % 11
		if r == 10 {
			r = 0
		}
		return byte('0' + r)
	}
	return n[9] == dv(9) && n[10] == dv(10)
}

// repeated reports whether s is one character repeated ("00000000000"):
// such numbers pass the check digits but are placeholders.
func repeated(s string) bool {
	return s != "" && strings.Count(s, s[:1]) == len(s)
}

func formatCNPJ(n string) string {
	return n[0:2] + "." + n[2:5] + "." + n[5:8] + "/" + n[8:12] + "-" + n[12:14]
}

func formatCPF(n string) string {
	return n[0:3] + "." + n[3:6] + "." + n[6:9] + "-" + n[9:11]
}

var (
	cnpjFormattedRe = regexp.MustCompile(`(?i)\b[0-9a-z]{2}\.[0-9a-z]{3}\.[0-9a-z]{3}/[0-9a-z]{4}-[0-9]{2}\b`)
	cpfFormattedRe  = regexp.MustCompile(`\b[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}\b`)
	digitRunRe      = regexp.MustCompile(`[0-9]+`)
	cnpjAlnumRe     = regexp.MustCompile(`\b[0-9A-Z]{12}[0-9]{2}\b`)
)

// cnpjLookBehind is how far before an unformatted alphanumeric CNPJ the
// word "CNPJ" must appear: without punctuation or a label, any 14-letter
// code would be a candidate.
const cnpjLookBehind = 40

type documentHit struct {
	span
	doc Document
}

// findDocuments returns the valid CNPJs and CPFs in text: formatted ones,
// bare 11/14-digit numbers standing alone, and bare alphanumeric CNPJs
// labelled "CNPJ".
func findDocuments(text string) []documentHit {
	var hits []documentHit
	var taken []span
	add := func(sp span, d Document) {
		for _, t := range taken {
			if sp.start < t.end && t.start < sp.end {
				return
			}
		}
		taken = append(taken, sp)
		hits = append(hits, documentHit{sp, d})
	}
	for _, m := range cnpjFormattedRe.FindAllStringIndex(text, -1) {
		if d, ok := cnpjDocument(text[m[0]:m[1]]); ok {
			add(span{m[0], m[1]}, d)
		}
	}
	for _, m := range cpfFormattedRe.FindAllStringIndex(text, -1) {
		if n := normalizeDocument(text[m[0]:m[1]]); validCPF(n) {
			add(span{m[0], m[1]}, Document{Kind: KindCPF, Number: n, Formatted: formatCPF(n)})
		}
	}
	for _, m := range digitRunRe.FindAllStringIndex(text, -1) {
		n := text[m[0]:m[1]]
		if (len(n) != 11 && len(n) != 14) || !standsAlone(text, m[0], m[1]) {
			continue
		}
		if len(n) == 14 && validCNPJ(n) {
			add(span{m[0], m[1]}, Document{Kind: KindCNPJ, Number: n, Formatted: formatCNPJ(n)})
		} else if len(n) == 11 && validCPF(n) {
			add(span{m[0], m[1]}, Document{Kind: KindCPF, Number: n, Formatted: formatCPF(n)})
		}
	}
	for _, m := range cnpjAlnumRe.FindAllStringIndex(text, -1) {
		n := text[m[0]:m[1]]
		if allDigits(n) || !strings.Contains(strings.ToUpper(text[max(0, m[0]-cnpjLookBehind):m[0]]), "CNPJ") {
			continue
		}
		if d, ok := cnpjDocument(n); ok {
			add(span{m[0], m[1]}, d)
		}
	}
	return hits
}

func cnpjDocument(s string) (Document, bool) {
	n := normalizeDocument(s)
	if !validCNPJ(n) {
		return Document{}, false
	}
	return Document{Kind: KindCNPJ, Number: n, Formatted: formatCNPJ(n), Alphanumeric: !allDigits(n)}, true
}

// standsAlone reports whether the digit run text[start:end] is a number of
// its own, not glued to letters or part of a longer punctuated number
// (an amount "12345678901,00", a date, an id "ABC-12345678901").
func standsAlone(text string, start, end int) bool {
	if start > 0 {
		c := text[start-1]
		if isAlnum(c) || ((c == '.' || c == ',' || c == '/' || c == '-') && start > 1 && isAlnum(text[start-2])) {
			return false
		}
	}
	if end < len(text) {
		c := text[end]
		if isAlnum(c) || ((c == '.' || c == ',' || c == '/' || c == '-') && end+1 < len(text) && isAlnum(text[end+1])) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
