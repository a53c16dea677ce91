// Package braziltest builds Brazilian codes for tests: boleto lines and
// barcodes whose check digits are right by construction, BR Codes (Pix)
// with a correct CRC, and single-digit corruptions of either. It is an
// independent re-implementation of the FEBRABAN layouts and of the BCB's
// CRC, written differently from platform/brazil (left to right, explicit
// weight tables, a bitwise CRC), so a fixture never shares a
// misunderstanding with the decoder it tests. Any package whose tests
// need a valid boleto or Pix code (the Inbox's extractor, Dunning's
// charges) uses it instead of writing its own.
//
// It imports nothing of the project, so platform/brazil's own tests can
// use it.
package braziltest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Two lines in real-world format whose check digits were verified by
// hand (not by code), so a shared misunderstanding between the decoder
// and the builders below cannot hide.
const (
	// ItauLine is an Itaú boleto due 2026-03-10 (factor 1381) for
	// R$ 1.234,56. Field 1 "341910912": products 3·2 4·1 1·2 9·1 1·2 0·1
	// 9·2→9 1·1 2·2 = 6+4+2+9+2+0+9+1+4 = 37 → DV 3. Field 2 "3456788012":
	// sum 46 → DV 4. Field 3 "3456789000": sum 42 → DV 8. General DV over
	// the 43 barcode digits with weights 2..9 from the right: sum 886,
	// 886 mod 11 = 6, 11−6 = 5.
	ItauLine = "34191.09123 34567.880124 34567.890008 5 13810000123456"
	// ItauBarcode is ItauLine's 44-digit barcode.
	ItauBarcode = "34195138100001234561091234567880123456789000"
	// EnergyLine is an energy bill (arrecadação segment 3, value
	// identifier 6 → mod 10) for R$ 158,90. Block 1 "83670000001": 1·2 +
	// 7·1 + 6·2→3 + 3·1 + 8·2→7 = 22 → DV 8; block 2 "58900001000": 1 +
	// 9·2→9 + 8 + 5·2→1 = 19 → DV 1; blocks 3 and 4 are zeros → DV 0.
	// General DV (4th digit) over the other 43 digits: 7+3+3+1+1+8+9+1 =
	// 33 → 7.
	EnergyLine = "83670000001-8 58900001000-1 00000000000-0 00000000000-0"
	// EnergyBarcode is EnergyLine's 44-digit barcode.
	EnergyBarcode = "83670000001589000010000000000000000000000000"
)

// BCBExample is the static BR Code printed in the Banco Central's BR Code
// manual; its CRC (1D3D) comes from the manual, not from code.
const BCBExample = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"

// Mod10 is the FEBRABAN modulo-10 digit, doubling every other digit from
// the right with a table of "digit sum of 2·d".
func Mod10(s string) int {
	doubled := [10]int{0, 2, 4, 6, 8, 1, 3, 5, 7, 9}
	sum := 0
	for i := 0; i < len(s); i++ {
		d := int(s[i] - '0')
		if (len(s)-1-i)%2 == 0 {
			sum += doubled[d]
		} else {
			sum += d
		}
	}
	if sum%10 == 0 {
		return 0
	}
	return 10 - sum%10
}

func mod11Sum(s string) int {
	weights := [8]int{2, 3, 4, 5, 6, 7, 8, 9}
	sum := 0
	for i := 0; i < len(s); i++ {
		sum += int(s[i]-'0') * weights[(len(s)-1-i)%8]
	}
	return sum
}

// BankBarcode builds the 44-digit barcode of a bank boleto: bank (3
// digits), currency, due-date factor, amount in cents and the 25-digit
// free field, with the general check digit computed.
func BankBarcode(tb testing.TB, bank, currency string, factor int, cents int64, free string) string {
	tb.Helper()
	if len(bank) != 3 || len(free) != 25 {
		tb.Fatalf("bad fixture: bank %q free %q", bank, free)
	}
	body := fmt.Sprintf("%s%s%04d%010d%s", bank, currency, factor, cents, free)
	dv := 11 - mod11Sum(body)%11
	if dv > 9 || dv == 0 {
		dv = 1
	}
	return body[:4] + fmt.Sprint(dv) + body[4:]
}

// BankLine is the 47-digit line of a bank barcode, unformatted.
func BankLine(bc string) string {
	f1 := bc[0:4] + bc[19:24]
	f2 := bc[24:34]
	f3 := bc[34:44]
	return fmt.Sprintf("%s%d%s%d%s%d%s%s", f1, Mod10(f1), f2, Mod10(f2), f3, Mod10(f3), bc[4:5], bc[5:19])
}

// FormatBankLine prints a 47-digit line the way boletos do.
func FormatBankLine(l string) string {
	return fmt.Sprintf("%s.%s %s.%s %s.%s %s %s", l[0:5], l[5:10], l[10:15], l[15:21], l[21:26], l[26:32], l[32:33], l[33:47])
}

// CollectionDV is the check digit an arrecadação slip with value
// identifier valueID uses: modulo 10 for 6 and 7, modulo 11 for 8 and 9.
func CollectionDV(valueID byte, s string) int {
	if valueID == '6' || valueID == '7' {
		return Mod10(s)
	}
	r := mod11Sum(s) % 11
	switch r {
	case 0, 1:
		return 0
	case 10:
		return 1
	}
	return 11 - r
}

// CollectionBarcode builds the 44-digit barcode of an arrecadação slip:
// product 8, segment, value identifier, the general check digit, the
// amount (11 digits) and 29 more digits (company and free field).
func CollectionBarcode(tb testing.TB, segment, valueID byte, cents int64, rest string) string {
	tb.Helper()
	if len(rest) != 29 {
		tb.Fatalf("bad fixture rest %q", rest)
	}
	body := fmt.Sprintf("8%c%c%011d%s", segment, valueID, cents, rest)
	return body[:3] + fmt.Sprint(CollectionDV(valueID, body)) + body[3:]
}

// CollectionLine is the 48-digit line of an arrecadação barcode,
// unformatted.
func CollectionLine(bc string) string {
	var b strings.Builder
	for i := 0; i < 4; i++ {
		block := bc[i*11 : i*11+11]
		fmt.Fprintf(&b, "%s%d", block, CollectionDV(bc[2], block))
	}
	return b.String()
}

// FormatCollectionLine prints a 48-digit line the way slips do.
func FormatCollectionLine(l string) string {
	return fmt.Sprintf("%s-%s %s-%s %s-%s %s-%s", l[0:11], l[11:12], l[12:23], l[23:24], l[24:35], l[35:36], l[36:47], l[47:48])
}

// OnlyDigits drops everything but the ASCII digits of s.
func OnlyDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// FlipDigit replaces the digit at position i (counting digits only) with
// another digit: the typo or OCR slip a check digit must catch.
func FlipDigit(s string, i int) string {
	b := []byte(s)
	n := -1
	for k := range b {
		if b[k] >= '0' && b[k] <= '9' {
			n++
			if n == i {
				b[k] = '0' + (b[k]-'0'+3)%10
				return string(b)
			}
		}
	}
	panic("digit index out of range")
}

// CRC is CRC-16/CCITT-FALSE, the BR Code checksum, bit by bit without a
// table, as 4 upper-case hexadecimal digits.
func CRC(s string) string {
	crc := 0xFFFF
	for _, c := range []byte(s) {
		crc ^= int(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = (crc<<1 ^ 0x1021) & 0xFFFF
			} else {
				crc = crc << 1 & 0xFFFF
			}
		}
	}
	return fmt.Sprintf("%04X", crc)
}

// TLV builds one EMV field; the length counts characters, as the BR Code
// specification does.
func TLV(id, value string) string {
	return fmt.Sprintf("%s%02d%s", id, len([]rune(value)), value)
}

// Pix builds a BR Code from its fields (each a TLV) and appends the CRC
// field (63) with a correct checksum.
func Pix(fields ...string) string {
	p := strings.Join(fields, "") + "6304"
	return p + CRC(p)
}

// Day parses an ISO date ("2026-03-10") as midnight UTC, the reference
// day a test decodes a boleto on. It panics on a malformed literal.
func Day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}
