package brazil

import "strings"

// Document kinds, as DocumentKind reports them: a person's CPF (11
// digits) or a company's CNPJ (14 characters).
const (
	KindCPF  = "cpf"
	KindCNPJ = "cnpj"
)

var (
	cnpjWeights1 = []int{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
	cnpjWeights2 = []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
)

// ValidCNPJ reports whether s (formatted or not, numeric or alphanumeric)
// is a CNPJ whose two check digits verify. Each of the first 12
// characters counts as its ASCII code minus 48 (digits 0–9, A=17 … Z=42),
// the Receita Federal's rule for the alphanumeric CNPJ issued from 2026,
// which makes it identical to the numeric rule for digit-only numbers, so
// one check serves both. Numbers of one repeated digit are rejected: they
// pass the check digits but are placeholders.
func ValidCNPJ(s string) bool {
	return validCNPJ(NormalizeDocument(s))
}

// ValidCPF reports whether s (formatted or not) is a CPF whose two check
// digits verify. Numbers of one repeated digit are rejected: they pass
// the check digits but are placeholders.
func ValidCPF(s string) bool {
	return validCPF(NormalizeDocument(s))
}

// NormalizeDocument drops the punctuation of a CPF or CNPJ (dots, slash,
// hyphen, spaces: anything but ASCII letters and digits) and upper-cases
// the letters of an alphanumeric CNPJ, giving the form to store and
// compare: "12.abc.345/01de-35" and "12ABC34501DE35" are one number. It
// does not validate; see DocumentKind.
func NormalizeDocument(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if (r >= '0' && r <= '9') || (r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// DocumentKind says whether s (formatted or not) is a valid CPF (KindCPF)
// or CNPJ (KindCNPJ), for a field that accepts either, as a debtor's
// document does. ok is false, and kind "", when it is neither: the check
// digits fail, the length fits neither, or it is a placeholder.
func DocumentKind(s string) (kind string, ok bool) {
	n := NormalizeDocument(s)
	switch {
	case validCPF(n):
		return KindCPF, true
	case validCNPJ(n):
		return KindCNPJ, true
	}
	return "", false
}

// FormatDocument prints a valid CPF or CNPJ with its usual punctuation,
// whatever form it was given in: "123.456.789-09", "12.345.678/0001-95"
// (letters of an alphanumeric CNPJ upper-cased). Anything that is not a
// valid CPF or CNPJ is returned unchanged, so a mistyped number is shown
// as typed and never dressed up as a real one.
func FormatDocument(s string) string {
	n := NormalizeDocument(s)
	switch {
	case validCPF(n):
		return n[0:3] + "." + n[3:6] + "." + n[6:9] + "-" + n[9:11]
	case validCNPJ(n):
		return n[0:2] + "." + n[2:5] + "." + n[5:8] + "/" + n[8:12] + "-" + n[12:14]
	}
	return s
}

// validCNPJ checks a normalised CNPJ: 12 letters or digits, then two
// check digits (modulo 11 with weights 2..9 from the right).
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

// validCPF checks a normalised CPF: 9 digits, then two check digits
// (modulo 11 with weights 10..2, then 11..2).
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

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
