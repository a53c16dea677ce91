package brazil

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
)

func TestDecodePixBCBExample(t *testing.T) {
	t.Parallel()
	p, err := DecodePix(braziltest.BCBExample)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != "123e4567-e12b-12d1-a456-426655440000" || p.KeyType != "evp" || p.MerchantName != "Fulano de Tal" ||
		p.MerchantCity != "BRASILIA" || p.TxID != "***" || p.Amount != "" || p.AmountCents != 0 {
		t.Errorf("got %+v", p)
	}
}

func TestCRC16MatchesTheBitwiseReference(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "123456789", braziltest.BCBExample[:len(braziltest.BCBExample)-4], "ação"} {
		if got, want := crc16CCITT([]byte(s)), braziltest.CRC(s); strings.ToUpper(hex4(got)) != want {
			t.Errorf("%q: table %04X, bitwise %s", s, got, want)
		}
	}
	if braziltest.CRC("123456789") != "29B1" { // the published CRC-16/CCITT-FALSE check value
		t.Fatal("reference CRC is wrong")
	}
}

func hex4(v uint16) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[v>>12], digits[v>>8&15], digits[v>>4&15], digits[v&15]})
}

func TestDecodePixFieldsAndKeyTypes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		account []string
		keyType string
	}{
		{[]string{braziltest.TLV("00", "br.gov.bcb.pix"), braziltest.TLV("01", "52998224725")}, "cpf"},
		{[]string{braziltest.TLV("00", "BR.GOV.BCB.PIX"), braziltest.TLV("01", "11222333000181")}, "cnpj"},
		{[]string{braziltest.TLV("00", "br.gov.bcb.pix"), braziltest.TLV("01", "financeiro@example.com.br"), braziltest.TLV("02", "Fatura 123")}, "email"},
		{[]string{braziltest.TLV("00", "br.gov.bcb.pix"), braziltest.TLV("01", "+5511999990000")}, "phone"},
		{[]string{braziltest.TLV("00", "br.gov.bcb.pix"), braziltest.TLV("25", "qr.example.com/v2/cobv/9d36b84f")}, "url"},
	}
	for _, c := range cases {
		code := braziltest.Pix(braziltest.TLV("00", "01"), braziltest.TLV("01", "12"), braziltest.TLV("26", strings.Join(c.account, "")), braziltest.TLV("52", "0000"),
			braziltest.TLV("53", "986"), braziltest.TLV("54", "1234.5"), braziltest.TLV("58", "BR"), braziltest.TLV("59", "Empresa Ação LTDA"),
			braziltest.TLV("60", "São Paulo"), braziltest.TLV("62", braziltest.TLV("05", "FAT2026000123")+braziltest.TLV("50", braziltest.TLV("00", "br.gov.bcb.brcode")+braziltest.TLV("01", "1.0.0"))))
		p, err := DecodePix(code)
		if err != nil {
			t.Errorf("%s: %v", c.keyType, err)
			continue
		}
		if p.KeyType != c.keyType || p.AmountCents != 123450 || p.Amount != "1234.50" || p.TxID != "FAT2026000123" ||
			p.MerchantName != "Empresa Ação LTDA" || p.MerchantCity != "São Paulo" {
			t.Errorf("%s: got %+v", c.keyType, p)
		}
	}
}

func TestDecodePixRejects(t *testing.T) {
	t.Parallel()
	valid := braziltest.Pix(braziltest.TLV("00", "01"), braziltest.TLV("26", braziltest.TLV("00", "br.gov.bcb.pix")+braziltest.TLV("01", "+5511999990000")), braziltest.TLV("52", "0000"),
		braziltest.TLV("53", "986"), braziltest.TLV("58", "BR"), braziltest.TLV("59", "FULANO"), braziltest.TLV("60", "RECIFE"), braziltest.TLV("62", braziltest.TLV("05", "***")))
	if _, err := DecodePix(valid); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	flipped := strings.Replace(valid, "FULANO", "FULANA", 1)
	cases := map[string]string{
		"flipped character":                 flipped,
		"lower-case CRC of another payload": valid[:len(valid)-4] + strings.ToLower(braziltest.CRC("x")),
		"not a BR Code":                     "hello",
		"truncated":                         valid[:len(valid)-10],
		"length overruns":                   strings.Replace(valid, "5906FULANO", "5999FULANO", 1),
		"non-digit length":                  strings.Replace(valid, "5906FULANO", "59x6FULANO", 1),
		"broken nested template": braziltest.Pix(braziltest.TLV("00", "01"), braziltest.TLV("26", "0014br.gov.bcb.pix0199abc"), braziltest.TLV("52", "0000"),
			braziltest.TLV("53", "986"), braziltest.TLV("58", "BR"), braziltest.TLV("59", "X"), braziltest.TLV("60", "Y")),
		"not Pix": braziltest.Pix(braziltest.TLV("00", "01"), braziltest.TLV("26", braziltest.TLV("00", "com.example.pay")+braziltest.TLV("01", "k")), braziltest.TLV("52", "0000"),
			braziltest.TLV("53", "986"), braziltest.TLV("58", "BR"), braziltest.TLV("59", "X"), braziltest.TLV("60", "Y")),
		"wrong currency": braziltest.Pix(braziltest.TLV("00", "01"), braziltest.TLV("26", braziltest.TLV("00", "br.gov.bcb.pix")+braziltest.TLV("01", "k")), braziltest.TLV("52", "0000"),
			braziltest.TLV("53", "840"), braziltest.TLV("58", "BR"), braziltest.TLV("59", "X"), braziltest.TLV("60", "Y")),
		"bad amount": braziltest.Pix(braziltest.TLV("00", "01"), braziltest.TLV("26", braziltest.TLV("00", "br.gov.bcb.pix")+braziltest.TLV("01", "k")), braziltest.TLV("52", "0000"),
			braziltest.TLV("53", "986"), braziltest.TLV("54", "12,50"), braziltest.TLV("58", "BR"), braziltest.TLV("59", "X"), braziltest.TLV("60", "Y")),
		"no city": braziltest.Pix(braziltest.TLV("00", "01"), braziltest.TLV("26", braziltest.TLV("00", "br.gov.bcb.pix")+braziltest.TLV("01", "k")), braziltest.TLV("52", "0000"),
			braziltest.TLV("53", "986"), braziltest.TLV("58", "BR"), braziltest.TLV("59", "X")),
		"data after CRC": valid + "00",
	}
	for name, code := range cases {
		if p, err := DecodePix(code); err == nil {
			t.Errorf("%s accepted: %+v", name, p)
		}
	}
	if _, err := DecodePix(flipped); err == nil || !strings.Contains(err.Error(), "CRC mismatch") {
		t.Errorf("flipped character: %v", err)
	}
}

// TestReadPixInsideText: ReadPix reads a code where it starts in a longer
// text, stops at its CRC whatever follows, and tells a broken structure
// (end 0) from a well-formed code that fails validation (end set).
func TestReadPixInsideText(t *testing.T) {
	t.Parallel()
	text := []rune("Pague: " + braziltest.BCBExample + " obrigado")
	start := len([]rune("Pague: "))
	end, p, err := ReadPix(text, start)
	if err != nil || string(text[start:end]) != braziltest.BCBExample || p.Payload != braziltest.BCBExample || p.KeyType != "evp" {
		t.Fatalf("end %d, %+v, %v", end, p, err)
	}
	bad := []rune(strings.Replace(braziltest.BCBExample, "Fulano", "Fulana", 1) + "6304")
	end, _, err = ReadPix(bad, 0)
	if end != len(bad)-4 || err == nil || !strings.Contains(err.Error(), "CRC mismatch") {
		t.Errorf("flipped character: end %d, %v", end, err)
	}
	broken := []rune("xx00020126580014br.gov.bcb.pix01ZZ")
	end, _, err = ReadPix(broken, 2)
	if end != 0 || err == nil || !strings.Contains(err.Error(), "malformed TLV") || !strings.Contains(err.Error(), "offset 8") {
		t.Errorf("broken structure: end %d, %v (offsets count from the start of the text)", end, err)
	}
	if end, _, err := ReadPix([]rune("000201"), 6); end != 0 || err == nil {
		t.Errorf("nothing left: end %d, %v", end, err)
	}
}

func TestFormatCents(t *testing.T) {
	t.Parallel()
	for c, want := range map[int64]string{0: "0.00", 5: "0.05", 99: "0.99", 123456: "1234.56", -150: "-1.50", 9999999999: "99999999.99"} {
		if got := FormatCents(c); got != want {
			t.Errorf("FormatCents(%d) = %q, want %q", c, got, want)
		}
	}
}
