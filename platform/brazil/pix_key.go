package brazil

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Pix key types, as DICT (the Pix directory of keys) names them.
const (
	PixKeyCPF   = "cpf"
	PixKeyCNPJ  = "cnpj"
	PixKeyEmail = "email"
	PixKeyPhone = "phone"
	PixKeyEVP   = "evp"
)

// pixMaxEmail is DICT's longest e-mail key.
const pixMaxEmail = 77

// NormalizePixKey checks a Pix key by its format and returns it as DICT
// holds it, with its type: a CPF or CNPJ by its check digits (punctuation
// dropped), a phone as +55 and 10 or 11 digits (E.164), an e-mail
// lower-cased (at most 77 characters), a random key (EVP) as a lower-case
// UUID. Eleven bare digits are a CPF, never a phone: DICT writes phones
// with +55. The error says which format the key failed.
func NormalizePixKey(raw string) (key, keyType string, err error) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return "", "", fmt.Errorf("is empty")
	case strings.HasPrefix(s, "+"):
		if !strings.HasPrefix(s, "+55") {
			return "", "", fmt.Errorf("a phone key must be a Brazilian number in E.164 form, +55 then DDD and number (+5511912345678)")
		}
		digits := s[3:]
		if !allDigits(digits) || (len(digits) != 10 && len(digits) != 11) || digits[0] == '0' {
			return "", "", fmt.Errorf("a phone key must be +55, the 2-digit DDD and the 8- or 9-digit number, digits only (+5511912345678)")
		}
		return s, PixKeyPhone, nil
	case strings.Contains(s, "@"):
		e := strings.ToLower(s)
		if len(e) > pixMaxEmail || !emailRe.MatchString(e) {
			return "", "", fmt.Errorf("an e-mail key must be an address of at most %d characters (nome@dominio.com.br)", pixMaxEmail)
		}
		return e, PixKeyEmail, nil
	case evpRe.MatchString(s):
		return strings.ToLower(s), PixKeyEVP, nil
	}
	n := NormalizeDocument(s)
	switch {
	case len(n) == 11 && allDigits(n):
		if !validCPF(n) {
			return "", "", fmt.Errorf("is not a valid CPF (its check digits fail); a phone key is written +55 and the number")
		}
		return n, PixKeyCPF, nil
	case len(n) == 14:
		if !validCNPJ(n) {
			return "", "", fmt.Errorf("is not a valid CNPJ (its check digits fail)")
		}
		return n, PixKeyCNPJ, nil
	}
	return "", "", fmt.Errorf("is not a Pix key: give a CPF, a CNPJ, an e-mail, a phone as +55 and the number, or a random key (UUID)")
}

// PixText is s as a BR Code's merchant name or city should carry it:
// accents dropped (São → SAO), upper-case, only ASCII letters, digits,
// spaces and . , - / &, spaces collapsed, cut to max characters. Payers'
// apps differ in what else they show, so the Banco Central's examples
// keep to this.
func PixText(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToUpper(r)
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(".,-/&", r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	out := b.String()
	if len(out) > max {
		out = strings.TrimSpace(out[:max])
	}
	return out
}
