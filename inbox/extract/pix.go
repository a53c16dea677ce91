package extract

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
// fetches the charge from.
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
	Amount      string   `json:"amount"`
	AmountCents int64    `json:"amount_cents"`
	TxID        string   `json:"txid"`
	Sources     []string `json:"sources"`
}

// InvalidPix is something that starts like a Pix code but fails: broken
// TLV, wrong CRC (a changed character), missing mandatory field. Payload
// is the code as found (its beginning when the structure is broken).
type InvalidPix struct {
	Payload string   `json:"payload"`
	Reason  string   `json:"reason"`
	Sources []string `json:"sources"`
}

// pixGUI identifies the Pix arrangement in a merchant account template.
const pixGUI = "br.gov.bcb.pix"

// DecodePix validates and decodes a complete BR Code payload.
func DecodePix(payload string) (Pix, error) {
	r := []rune(payload)
	if !strings.HasPrefix(payload, "000201") {
		return Pix{}, fmt.Errorf("payload must start with field 00 = \"01\"")
	}
	end, fields, err := scanPixFields(r, 0)
	if err != nil {
		return Pix{}, err
	}
	if end != len(r) {
		return Pix{}, fmt.Errorf("data after the CRC field (63)")
	}
	return decodePixFields(payload, fields)
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
		if gui, _ := tlvGet(sub, "00"); !strings.EqualFold(gui, pixGUI) {
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
		return Pix{}, fmt.Errorf("no merchant account with GUI %s (fields 26-51)", pixGUI)
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
		p.Amount = formatCents(p.AmountCents)
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
	case len(key) == 11 && allDigits(key) && validCPF(key):
		return "cpf"
	case len(key) == 14 && validCNPJ(strings.ToUpper(key)):
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

// pixHit is a Pix code (or invalid one) found in a text.
type pixHit struct {
	span
	pix     Pix
	invalid *InvalidPix
}

// pixIgnored are characters dropped before looking for Pix codes: line
// breaks (long codes wrap in bodies and PDFs) and invisible characters
// some e-mail clients insert.
func pixIgnored(r rune) bool {
	switch r {
	case '\r', '\n', '\u200b', '\u200c', '\u200d', '\u00ad', '\ufeff':
		return true
	}
	return false
}

// findPix returns the Pix codes in text. A code is recognised by its
// start ("000201") and read field by field up to its CRC; failures are
// reported only when the Pix GUI appears right after the start, so stray
// digits are not mistaken for broken codes.
func findPix(text string) []pixHit {
	if !strings.Contains(text, "0002") {
		return nil
	}
	var runes []rune
	var offs []int // byte offset in text of each rune kept
	for i, r := range text {
		if !pixIgnored(r) {
			runes = append(runes, r)
			offs = append(offs, i)
		}
	}
	offs = append(offs, len(text))
	var hits []pixHit
	for i := 0; i+6 <= len(runes); i++ {
		if string(runes[i:i+6]) != "000201" {
			continue
		}
		end, fields, err := scanPixFields(runes, i)
		if err != nil {
			if looksLikePix(runes, i) {
				excerpt := strings.TrimSpace(string(runes[i:min(len(runes), i+120)]))
				hits = append(hits, pixHit{span: span{offs[i], offs[i]}, invalid: &InvalidPix{Payload: excerpt, Reason: err.Error()}})
				i += 5
			}
			continue
		}
		payload := string(runes[i:end])
		sp := span{offs[i], offs[end-1] + len(string(runes[end-1]))}
		p, err := decodePixFields(payload, fields)
		if err != nil {
			hits = append(hits, pixHit{span: sp, invalid: &InvalidPix{Payload: payload, Reason: err.Error()}})
		} else {
			hits = append(hits, pixHit{span: sp, pix: p})
		}
		i = end - 1
	}
	return hits
}

// looksLikePix reports whether the Pix GUI follows a "000201" closely.
func looksLikePix(r []rune, i int) bool {
	return strings.Contains(strings.ToLower(string(r[i:min(len(r), i+80)])), pixGUI)
}
