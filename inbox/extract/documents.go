package extract

import (
	"regexp"
	"strings"

	"github.com/kobana/kobana-mcp/platform/brazil"
)

// Document is a CNPJ or CPF found in the e-mail whose check digits
// verify. Kind is brazil.KindCNPJ or brazil.KindCPF, Number the
// normalised form (brazil.NormalizeDocument: 14 or 11 characters, letters
// upper-case), Formatted the usual punctuation (brazil.FormatDocument:
// "12.345.678/0001-95", "123.456.789-09"). Alphanumeric marks the CNPJ
// format introduced in 2026, with letters in the first 12 positions.
type Document struct {
	Kind         string   `json:"kind"`
	Number       string   `json:"number"`
	Formatted    string   `json:"formatted"`
	Alphanumeric bool     `json:"alphanumeric"`
	Sources      []string `json:"sources"`
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
		if d, ok := document(text[m[0]:m[1]]); ok {
			add(span{m[0], m[1]}, d)
		}
	}
	for _, m := range cpfFormattedRe.FindAllStringIndex(text, -1) {
		if d, ok := document(text[m[0]:m[1]]); ok {
			add(span{m[0], m[1]}, d)
		}
	}
	for _, m := range digitRunRe.FindAllStringIndex(text, -1) {
		if n := m[1] - m[0]; (n != 11 && n != 14) || !standsAlone(text, m[0], m[1]) {
			continue
		}
		if d, ok := document(text[m[0]:m[1]]); ok {
			add(span{m[0], m[1]}, d)
		}
	}
	for _, m := range cnpjAlnumRe.FindAllStringIndex(text, -1) {
		n := text[m[0]:m[1]]
		if allDigits(n) || !strings.Contains(strings.ToUpper(text[max(0, m[0]-cnpjLookBehind):m[0]]), "CNPJ") {
			continue
		}
		if d, ok := document(n); ok {
			add(span{m[0], m[1]}, d)
		}
	}
	return hits
}

// document reads s as a CPF or CNPJ, which brazil.DocumentKind tells
// apart by length, into a finding (without Sources).
func document(s string) (Document, bool) {
	kind, ok := brazil.DocumentKind(s)
	if !ok {
		return Document{}, false
	}
	n := brazil.NormalizeDocument(s)
	return Document{Kind: kind, Number: n, Formatted: brazil.FormatDocument(n), Alphanumeric: !allDigits(n)}, true
}

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
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
