package brazil

import (
	"fmt"
	"strconv"
)

// tlvField is one EMV "ID, length, value" field; lengths count
// characters (runes), as the BR Code specification does.
type tlvField struct {
	ID    string
	Value string
}

// maxPixPayload is the EMV limit on a merchant-presented code.
const maxPixPayload = 512

// readTLV reads one field at s[pos:], returning it and the position after
// it.
func readTLV(s []rune, pos int) (tlvField, int, error) {
	if pos+4 > len(s) {
		return tlvField{}, 0, fmt.Errorf("truncated field header at offset %d", pos)
	}
	id, l := string(s[pos:pos+2]), string(s[pos+2:pos+4])
	if !allDigits(id) {
		return tlvField{}, 0, fmt.Errorf("field id %q at offset %d is not two digits", id, pos)
	}
	if !allDigits(l) {
		return tlvField{}, 0, fmt.Errorf("field %s length %q at offset %d is not two digits", id, l, pos)
	}
	n, _ := strconv.Atoi(l)
	if n == 0 {
		return tlvField{}, 0, fmt.Errorf("field %s at offset %d is empty", id, pos)
	}
	end := pos + 4 + n
	if end > len(s) {
		return tlvField{}, 0, fmt.Errorf("field %s at offset %d declares %d characters, only %d left", id, pos, n, len(s)-pos-4)
	}
	return tlvField{ID: id, Value: string(s[pos+4 : end])}, end, nil
}

// parseTLV parses s as a sequence of fields that must consume it exactly
// (the nested templates of a BR Code).
func parseTLV(s string) ([]tlvField, error) {
	r := []rune(s)
	var out []tlvField
	for pos := 0; pos < len(r); {
		f, next, err := readTLV(r, pos)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
		pos = next
	}
	return out, nil
}

func tlvGet(fields []tlvField, id string) (string, bool) {
	for _, f := range fields {
		if f.ID == id {
			return f.Value, true
		}
	}
	return "", false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
