package extract

import (
	"strings"
	"testing"
)

// bcbExample is the static BR Code printed in the Banco Central's BR Code
// manual; its CRC (1D3D) comes from the manual, not from our code.
const bcbExample = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"

func TestDecodePixBCBExample(t *testing.T) {
	p, err := DecodePix(bcbExample)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key != "123e4567-e12b-12d1-a456-426655440000" || p.KeyType != "evp" || p.MerchantName != "Fulano de Tal" ||
		p.MerchantCity != "BRASILIA" || p.TxID != "***" || p.Amount != "" || p.AmountCents != 0 {
		t.Errorf("got %+v", p)
	}
}

func TestCRC16MatchesTheBitwiseReference(t *testing.T) {
	for _, s := range []string{"", "123456789", bcbExample[:len(bcbExample)-4], "ação"} {
		if got, want := crc16CCITT([]byte(s)), tCRC(s); strings.ToUpper(hex4(got)) != want {
			t.Errorf("%q: table %04X, bitwise %s", s, got, want)
		}
	}
	if tCRC("123456789") != "29B1" { // the published CRC-16/CCITT-FALSE check value
		t.Fatal("reference CRC is wrong")
	}
}

func hex4(v uint16) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[v>>12], digits[v>>8&15], digits[v>>4&15], digits[v&15]})
}

func TestDecodePixFieldsAndKeyTypes(t *testing.T) {
	cases := []struct {
		account []string
		keyType string
	}{
		{[]string{tTLV("00", "br.gov.bcb.pix"), tTLV("01", "52998224725")}, "cpf"},
		{[]string{tTLV("00", "BR.GOV.BCB.PIX"), tTLV("01", "11222333000181")}, "cnpj"},
		{[]string{tTLV("00", "br.gov.bcb.pix"), tTLV("01", "financeiro@example.com.br"), tTLV("02", "Fatura 123")}, "email"},
		{[]string{tTLV("00", "br.gov.bcb.pix"), tTLV("01", "+5511999990000")}, "phone"},
		{[]string{tTLV("00", "br.gov.bcb.pix"), tTLV("25", "qr.example.com/v2/cobv/9d36b84f")}, "url"},
	}
	for _, c := range cases {
		code := tPix(tTLV("00", "01"), tTLV("01", "12"), tTLV("26", strings.Join(c.account, "")), tTLV("52", "0000"),
			tTLV("53", "986"), tTLV("54", "1234.5"), tTLV("58", "BR"), tTLV("59", "Empresa Ação LTDA"),
			tTLV("60", "São Paulo"), tTLV("62", tTLV("05", "FAT2026000123")+tTLV("50", tTLV("00", "br.gov.bcb.brcode")+tTLV("01", "1.0.0"))))
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
	valid := tPix(tTLV("00", "01"), tTLV("26", tTLV("00", "br.gov.bcb.pix")+tTLV("01", "+5511999990000")), tTLV("52", "0000"),
		tTLV("53", "986"), tTLV("58", "BR"), tTLV("59", "FULANO"), tTLV("60", "RECIFE"), tTLV("62", tTLV("05", "***")))
	if _, err := DecodePix(valid); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	flipped := strings.Replace(valid, "FULANO", "FULANA", 1)
	cases := map[string]string{
		"flipped character":                 flipped,
		"lower-case CRC of another payload": valid[:len(valid)-4] + strings.ToLower(tCRC("x")),
		"not a BR Code":                     "hello",
		"truncated":                         valid[:len(valid)-10],
		"length overruns":                   strings.Replace(valid, "5906FULANO", "5999FULANO", 1),
		"non-digit length":                  strings.Replace(valid, "5906FULANO", "59x6FULANO", 1),
		"broken nested template": tPix(tTLV("00", "01"), tTLV("26", "0014br.gov.bcb.pix0199abc"), tTLV("52", "0000"),
			tTLV("53", "986"), tTLV("58", "BR"), tTLV("59", "X"), tTLV("60", "Y")),
		"not Pix": tPix(tTLV("00", "01"), tTLV("26", tTLV("00", "com.example.pay")+tTLV("01", "k")), tTLV("52", "0000"),
			tTLV("53", "986"), tTLV("58", "BR"), tTLV("59", "X"), tTLV("60", "Y")),
		"wrong currency": tPix(tTLV("00", "01"), tTLV("26", tTLV("00", "br.gov.bcb.pix")+tTLV("01", "k")), tTLV("52", "0000"),
			tTLV("53", "840"), tTLV("58", "BR"), tTLV("59", "X"), tTLV("60", "Y")),
		"bad amount": tPix(tTLV("00", "01"), tTLV("26", tTLV("00", "br.gov.bcb.pix")+tTLV("01", "k")), tTLV("52", "0000"),
			tTLV("53", "986"), tTLV("54", "12,50"), tTLV("58", "BR"), tTLV("59", "X"), tTLV("60", "Y")),
		"no city": tPix(tTLV("00", "01"), tTLV("26", tTLV("00", "br.gov.bcb.pix")+tTLV("01", "k")), tTLV("52", "0000"),
			tTLV("53", "986"), tTLV("58", "BR"), tTLV("59", "X")),
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

func TestFindPixInTextWrappedAndInvalid(t *testing.T) {
	good := bcbExample
	wrapped := good[:40] + "\r\n" + good[40:90] + "\n" + good[90:]
	bad := strings.Replace(good, "Fulano", "Fulana", 1)
	text := "Pix copia e cola:\n" + wrapped + "\nOu então: " + bad + " obrigado.\nNúmero 000201 qualquer."
	hits := findPix(text)
	if len(hits) != 2 {
		t.Fatalf("want 2 hits, got %+v", hits)
	}
	if hits[0].invalid != nil || hits[0].pix.Payload != good {
		t.Errorf("wrapped code: %+v", hits[0])
	}
	if got := text[hits[0].start:hits[0].end]; got != wrapped {
		t.Errorf("span %q, want the wrapped code", got)
	}
	if hits[1].invalid == nil || hits[1].invalid.Payload != bad || !strings.Contains(hits[1].invalid.Reason, "CRC") {
		t.Errorf("flipped code: %+v", hits[1])
	}
	// A broken structure after a Pix start is reported with its beginning.
	hits = findPix("x 00020126580014br.gov.bcb.pix01ZZ")
	if len(hits) != 1 || hits[0].invalid == nil || !strings.Contains(hits[0].invalid.Reason, "malformed TLV") {
		t.Errorf("malformed: %+v", hits)
	}
}
