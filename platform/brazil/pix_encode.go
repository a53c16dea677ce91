package brazil

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// PixCode is what a static Pix BR Code ("copia e cola") carries, as
// EncodePix writes it. The layout is the Banco Central's (Manual de
// Padrões para Iniciação do Pix, BR Code section; the Pix arrangement's
// rules are Resolução BCB nº 1/2020): the EMV QRCPS merchant-presented
// mode fields 00, 26 (GUI br.gov.bcb.pix and the key), 52, 53, 54, 58,
// 59, 60, 62 (its subfield 05, the txid) and 63, the CRC.
type PixCode struct {
	// Key is the receiver's Pix key, as DICT holds it (NormalizePixKey).
	Key string
	// Info is an optional message to the payer (field 26's subfield 02).
	Info string
	// MerchantName (at most 25 characters) and MerchantCity (at most 15)
	// are the receiver's, as the payer's app shows them.
	MerchantName string
	MerchantCity string
	// AmountCents is the amount in centavos; 0 leaves the amount to the
	// payer (no field 54).
	AmountCents int64
	// TxID is the reference the receiver matches the payment with: up to
	// 25 letters and digits, or "***" for none.
	TxID string
}

// BR Code limits (Manual de Padrões para Iniciação do Pix).
const (
	PixMaxMerchantName = 25
	PixMaxMerchantCity = 15
	PixMaxTxID         = 25
)

var pixTxIDRe = regexp.MustCompile(`^[A-Za-z0-9]{1,25}$`)

// EncodePix writes c as a static BR Code payload with its CRC. It refuses
// what a payer's bank would refuse: no key, a name or city empty or too
// long, a txid other than "***" or 1–25 letters and digits, a negative
// amount or one over field 54's 13 characters. What DecodePix reads back
// from the result is c.
func EncodePix(c PixCode) (string, error) {
	switch {
	case c.Key == "":
		return "", fmt.Errorf("pix: no key")
	case c.MerchantName == "" || utf8.RuneCountInString(c.MerchantName) > PixMaxMerchantName:
		return "", fmt.Errorf("pix: merchant name must have 1 to %d characters", PixMaxMerchantName)
	case c.MerchantCity == "" || utf8.RuneCountInString(c.MerchantCity) > PixMaxMerchantCity:
		return "", fmt.Errorf("pix: merchant city must have 1 to %d characters", PixMaxMerchantCity)
	case c.TxID != "***" && !pixTxIDRe.MatchString(c.TxID):
		return "", fmt.Errorf("pix: txid must be *** or 1 to %d letters and digits", PixMaxTxID)
	case c.AmountCents < 0:
		return "", fmt.Errorf("pix: negative amount")
	}
	account := pixTLV("00", PixGUI) + pixTLV("01", c.Key)
	if c.Info != "" {
		account += pixTLV("02", c.Info)
	}
	if utf8.RuneCountInString(account) > 99 {
		return "", fmt.Errorf("pix: key and message do not fit the merchant account field (99 characters)")
	}
	var b strings.Builder
	b.WriteString(pixTLV("00", "01"))
	b.WriteString(pixTLV("26", account))
	b.WriteString(pixTLV("52", "0000"))
	b.WriteString(pixTLV("53", "986"))
	if c.AmountCents > 0 {
		amount := FormatCents(c.AmountCents)
		if len(amount) > 13 {
			return "", fmt.Errorf("pix: amount %s is over field 54's 13 characters", amount)
		}
		b.WriteString(pixTLV("54", amount))
	}
	b.WriteString(pixTLV("58", "BR"))
	b.WriteString(pixTLV("59", c.MerchantName))
	b.WriteString(pixTLV("60", c.MerchantCity))
	b.WriteString(pixTLV("62", pixTLV("05", c.TxID)))
	b.WriteString("6304")
	if utf8.RuneCountInString(b.String())+4 > maxPixPayload {
		return "", fmt.Errorf("pix: payload over %d characters", maxPixPayload)
	}
	return b.String() + fmt.Sprintf("%04X", crc16CCITT([]byte(b.String()))), nil
}

// pixTLV is one field: its id, its length in characters (two digits) and
// its value. The callers keep values under 100 characters.
func pixTLV(id, value string) string {
	return fmt.Sprintf("%s%02d%s", id, utf8.RuneCountInString(value), value)
}
