package brazil

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Pix is a verified Pix "copia e cola" code (BR Code, EMV merchant-
// presented mode): the TLV structure is well-formed, the CRC matches and
// the mandatory fields are present. A static code carries the receiver's
// key; a dynamic one carries a URL (KeyType "url") the payer's bank
// fetches the charge from. The JSON names are part of the Inbox
// extractor's published output (its findings embed this type): renaming
// one is a breaking change there.
type Pix struct {
	Payload string `json:"payload"`
	Key     string `json:"key"`
	// KeyType is cpf, cnpj, email, phone, evp (random key), url, or
	// unknown for a key none of those patterns fit.
	KeyType      string `json:"key_type"`
	Info         string `json:"info"`
	MerchantName string `json:"merchant_name"`
	MerchantCity string `json:"merchant_city"`
	// Amount is "" (and AmountCents 0) when the payer chooses the amount.
	Amount      string `json:"amount"`
	AmountCents int64  `json:"amount_cents"`
	TxID        string `json:"txid"`
}

// PixGUI identifies the Pix arrangement in a merchant account template
// (fields 26–51). A scanner can look for it near a "000201" to tell a
// broken Pix code from stray digits.
const PixGUI = "br.gov.bcb.pix"

// PixStart is how every BR Code begins: field 00 (payload format
// indicator) with the value "01".
const PixStart = "000201"

// DecodePix validates and decodes a complete BR Code payload, as pasted
// by a payer or read from a QR code. The error says what failed: the TLV
// structure, the CRC (a changed character) or a mandatory field.
func DecodePix(payload string) (Pix, error) {
	r := []rune(payload)
	if !strings.HasPrefix(payload, PixStart) {
		return Pix{}, fmt.Errorf("payload must start with field 00 = \"01\"")
	}
	end, p, err := ReadPix(r, 0)
	if end == 0 {
		return Pix{}, err
	}
	if end != len(r) {
		return Pix{}, fmt.Errorf("data after the CRC field (63)")
	}
	return p, err
}

// ReadPix reads the BR Code that starts at r[start] inside a longer text,
// the way a scanner finds codes: field by field up to the CRC field (63),
// ignoring what follows. It takes the text as runes because BR Code
// lengths count characters. end is the index in r after the CRC field
// when the TLV structure holds, and 0 when it does not (err says why);
// with end > 0, err is nil when the code is valid (p is decoded) and
// otherwise says why r[start:end] is not. Offsets in errors count from
// the beginning of r. The caller checks that r[start:] begins with
// PixStart.
func ReadPix(r []rune, start int) (end int, p Pix, err error) {
	end, fields, err := scanPixFields(r, start)
	if err != nil {
		return 0, Pix{}, err
	}
	p, err = decodePixFields(string(r[start:end]), fields)
	return end, p, err
}

// scanPixFields reads top-level fields from r[start:] up to and including
// the CRC field (ID 63), returning the position after it.
func scanPixFields(r []rune, start int) (int, []tlvField, error) {
	var fields []tlvField
	for pos := start; ; {
		if pos-start >= maxPixPayload {
			return 0, nil, fmt.Errorf("no CRC field (63) within %d characters", maxPixPayload)
		}
		if pos >= len(r) {
			return 0, nil, fmt.Errorf("payload ends before the CRC field (63)")
		}
		f, next, err := readTLV(r, pos)
		if err != nil {
			return 0, nil, fmt.Errorf("malformed TLV: %w", err)
		}
		if next-start > maxPixPayload {
			return 0, nil, fmt.Errorf("payload longer than %d characters", maxPixPayload)
		}
		fields = append(fields, f)
		pos = next
		if f.ID == "63" {
			return pos, fields, nil
		}
	}
}

var (
	pixAmountRe = regexp.MustCompile(`^[0-9]{1,10}(\.[0-9]{1,2})?$`)
	hex4Re      = regexp.MustCompile(`^[0-9A-Fa-f]{4}$`)
)

// decodePixFields checks the CRC and the mandatory fields of a payload
// already split into fields (the last being 63).
func decodePixFields(payload string, fields []tlvField) (Pix, error) {
	if len(fields) == 0 || fields[0].ID != "00" || fields[0].Value != "01" {
		return Pix{}, fmt.Errorf("first field must be 00 (payload format indicator) = \"01\"")
	}
	crcField := fields[len(fields)-1]
	if len(crcField.Value) != 4 || !hex4Re.MatchString(crcField.Value) {
		return Pix{}, fmt.Errorf("CRC field (63) must be 4 hexadecimal digits")
	}
	covered := payload[:len(payload)-4]
	if got, want := strings.ToUpper(crcField.Value), fmt.Sprintf("%04X", crc16CCITT([]byte(covered))); got != want {
		return Pix{}, fmt.Errorf("CRC mismatch: code says %s, content gives %s", got, want)
	}
	p := Pix{Payload: payload}
	foundGUI := false
	for _, f := range fields {
		id, _ := strconv.Atoi(f.ID)
		if id < 26 || id > 51 {
			continue
		}
		sub, err := parseTLV(f.Value)
		if err != nil {
			return Pix{}, fmt.Errorf("merchant account field %s: %w", f.ID, err)
		}
		if gui, _ := tlvGet(sub, "00"); !strings.EqualFold(gui, PixGUI) {
			continue
		}
		foundGUI = true
		p.Info, _ = tlvGet(sub, "02")
		if key, ok := tlvGet(sub, "01"); ok {
			p.Key, p.KeyType = key, pixKeyType(key)
		} else if url, ok := tlvGet(sub, "25"); ok {
			p.Key, p.KeyType = url, "url"
		} else {
			return Pix{}, fmt.Errorf("Pix merchant account (field %s) has neither a key (01) nor a URL (25)", f.ID)
		}
		break
	}
	if !foundGUI {
		return Pix{}, fmt.Errorf("no merchant account with GUI %s (fields 26-51)", PixGUI)
	}
	if mcc, ok := tlvGet(fields, "52"); !ok || len(mcc) != 4 || !allDigits(mcc) {
		return Pix{}, fmt.Errorf("merchant category code (52) missing or not 4 digits")
	}
	if cur, _ := tlvGet(fields, "53"); cur != "986" {
		return Pix{}, fmt.Errorf("currency (53) must be 986 (BRL), got %q", cur)
	}
	if amt, ok := tlvGet(fields, "54"); ok {
		if !pixAmountRe.MatchString(amt) {
			return Pix{}, fmt.Errorf("amount (54) %q is not a decimal number", amt)
		}
		p.AmountCents = decimalCents(amt)
		p.Amount = FormatCents(p.AmountCents)
	}
	if cc, _ := tlvGet(fields, "58"); cc != "BR" {
		return Pix{}, fmt.Errorf("country (58) must be BR, got %q", cc)
	}
	var ok bool
	if p.MerchantName, ok = tlvGet(fields, "59"); !ok {
		return Pix{}, fmt.Errorf("merchant name (59) missing")
	}
	if p.MerchantCity, ok = tlvGet(fields, "60"); !ok {
		return Pix{}, fmt.Errorf("merchant city (60) missing")
	}
	if add, ok := tlvGet(fields, "62"); ok {
		sub, err := parseTLV(add)
		if err != nil {
			return Pix{}, fmt.Errorf("additional data field (62): %w", err)
		}
		p.TxID, _ = tlvGet(sub, "05")
	}
	return p, nil
}

// decimalCents converts "123", "123.4" or "123.45" to cents; the caller
// has checked the format.
func decimalCents(s string) int64 {
	whole, frac, _ := strings.Cut(s, ".")
	w, _ := strconv.ParseInt(whole, 10, 64)
	frac = (frac + "00")[:2]
	f, _ := strconv.ParseInt(frac, 10, 64)
	return w*100 + f
}

var (
	evpRe   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	phoneRe = regexp.MustCompile(`^\+[0-9]{10,15}$`)
	emailRe = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
)

// pixKeyType classifies a Pix key by its format, as DICT does.
func pixKeyType(key string) string {
	switch {
	case validCPF(key):
		return "cpf"
	case validCNPJ(strings.ToUpper(key)):
		return "cnpj"
	case phoneRe.MatchString(key):
		return "phone"
	case emailRe.MatchString(key):
		return "email"
	case evpRe.MatchString(key):
		return "evp"
	}
	return "unknown"
}
