package extract

import (
	"strings"
	"testing"
)

// Two lines in real-world format whose check digits were verified by hand
// (not by code), so a shared misunderstanding between the production code
// and the test helpers cannot hide.
const (
	// Itaú, due 2026-03-10 (factor 1381), R$ 1.234,56.
	// Field 1 "341910912": products 3·2 4·1 1·2 9·1 1·2 0·1 9·2→9 1·1 2·2
	// = 6+4+2+9+2+0+9+1+4 = 37 → DV 3. Field 2 "3456788012": sum 46 → DV 4.
	// Field 3 "3456789000": sum 42 → DV 8. General DV over the 43 barcode
	// digits with weights 2..9 from the right: sum 886, 886 mod 11 = 6,
	// 11−6 = 5.
	handItauLine    = "34191.09123 34567.880124 34567.890008 5 13810000123456"
	handItauBarcode = "34195138100001234561091234567880123456789000"
	// Energy bill (segment 3, value identifier 6 → mod 10), R$ 158,90.
	// Block 1 "83670000001": 1·2 + 7·1 + 6·2→3 + 3·1 + 8·2→7 = 22 → DV 8;
	// block 2 "58900001000": 1 + 9·2→9 + 8 + 5·2→1 = 19 → DV 1; blocks 3
	// and 4 are zeros → DV 0. General DV (4th digit) over the other 43
	// digits: 7+3+3+1+1+8+9+1 = 33 → 7.
	handEnergyLine    = "83670000001-8 58900001000-1 00000000000-0 00000000000-0"
	handEnergyBarcode = "83670000001589000010000000000000000000000000"
)

func TestDecodeBoletoHandVerifiedLines(t *testing.T) {
	ref := day("2026-02-01")
	b, err := DecodeBoleto(handItauLine, ref)
	if err != nil {
		t.Fatal(err)
	}
	want := Boleto{
		Kind: KindBank, DigitableLine: onlyDigits(handItauLine), FormattedLine: handItauLine,
		Barcode: handItauBarcode, FoundAs: "digitable_line", BankCode: "341", BankName: "Itaú Unibanco",
		CurrencyCode: "9", ValueType: "effective", Amount: "1234.56", AmountCents: 123456,
		DueFactor: 1381, DueDate: "2026-03-10",
	}
	if !equalBoleto(b, want) {
		t.Errorf("Itaú line:\n got %+v\nwant %+v", b, want)
	}

	c, err := DecodeBoleto(handEnergyLine, ref)
	if err != nil {
		t.Fatal(err)
	}
	wantC := Boleto{
		Kind: KindCollection, DigitableLine: onlyDigits(handEnergyLine), FormattedLine: handEnergyLine,
		Barcode: handEnergyBarcode, FoundAs: "digitable_line", Segment: "3", SegmentName: "energia_eletrica_e_gas",
		ValueType: "effective", Amount: "158.90", AmountCents: 15890,
	}
	if !equalBoleto(c, wantC) {
		t.Errorf("energy line:\n got %+v\nwant %+v", c, wantC)
	}

	// The barcodes decode to the same boletos, found as barcodes.
	fromBC, err := DecodeBoleto(handItauBarcode, ref)
	if err != nil || fromBC.DigitableLine != want.DigitableLine || fromBC.FoundAs != "barcode" {
		t.Errorf("Itaú barcode: %+v, %v", fromBC, err)
	}
	fromBC, err = DecodeBoleto(handEnergyBarcode, ref)
	if err != nil || fromBC.DigitableLine != wantC.DigitableLine || fromBC.FoundAs != "barcode" {
		t.Errorf("energy barcode: %+v, %v", fromBC, err)
	}
}

func equalBoleto(a, b Boleto) bool {
	a.Sources, b.Sources = nil, nil
	return a.Kind == b.Kind && a.DigitableLine == b.DigitableLine && a.FormattedLine == b.FormattedLine &&
		a.Barcode == b.Barcode && a.FoundAs == b.FoundAs && a.BankCode == b.BankCode && a.BankName == b.BankName &&
		a.CurrencyCode == b.CurrencyCode && a.Segment == b.Segment && a.SegmentName == b.SegmentName &&
		a.ValueType == b.ValueType && a.Amount == b.Amount && a.AmountCents == b.AmountCents &&
		a.DueFactor == b.DueFactor && a.DueDate == b.DueDate
}

func TestDecodeBoletoGeneratedBankLines(t *testing.T) {
	ref := day("2026-01-15")
	cases := []struct {
		bank   string
		factor int
		cents  int64
		free   string
		due    string
	}{
		{"237", 1381, 99, "3381286000000000000400000", "2026-03-10"},
		{"001", 1000, 1000000, "0000002345678901234567817", "2025-02-22"},
		{"104", 9999, 5, "1234567890123456789012345", "2025-02-21"},
		{"756", 2000, 9999999999, "9876543210987654321098765", "2027-11-19"},
		{"999", 0, 0, "0000000000000000000000001", ""},
	}
	for _, c := range cases {
		bc := tBankBarcode(t, c.bank, "9", c.factor, c.cents, c.free)
		line := tBankLine(bc)
		for _, form := range []string{line, tFormatBankLine(line), bc} {
			b, err := DecodeBoleto(form, ref)
			if err != nil {
				t.Errorf("%s: %v", form, err)
				continue
			}
			if b.Barcode != bc || b.DigitableLine != line || b.AmountCents != c.cents || b.DueDate != c.due || b.BankCode != c.bank {
				t.Errorf("%s: got %+v", form, b)
			}
			if b.FormattedLine != tFormatBankLine(line) {
				t.Errorf("formatted %q, want %q", b.FormattedLine, tFormatBankLine(line))
			}
		}
	}
}

func TestDecodeBoletoGeneratedCollectionLines(t *testing.T) {
	for _, vid := range []byte{'6', '7', '8', '9'} {
		for _, rest := range []string{"00010000000000000000000000000", "12345678901234567890123456789", "98765432109876543210987654321"} {
			bc := tCollectionBarcode(t, '2', vid, 4321, rest)
			line := tCollectionLine(bc)
			for _, form := range []string{line, tFormatCollectionLine(line), bc} {
				b, err := DecodeBoleto(form, day("2026-01-01"))
				if err != nil {
					t.Errorf("value id %c %s: %v", vid, form, err)
					continue
				}
				if b.Kind != KindCollection || b.Barcode != bc || b.DigitableLine != line || b.AmountCents != 4321 || b.SegmentName != "saneamento" {
					t.Errorf("%s: got %+v", form, b)
				}
				wantType := "effective"
				if vid == '7' || vid == '9' {
					wantType = "reference"
				}
				if b.ValueType != wantType {
					t.Errorf("value id %c: value type %q", vid, b.ValueType)
				}
			}
		}
	}
}

// Every single-digit corruption of a line or barcode must be caught: the
// check digits are what make a finding trustworthy.
func TestDecodeBoletoRejectsEverySingleDigitChange(t *testing.T) {
	ref := day("2026-01-01")
	inputs := []string{
		onlyDigits(handItauLine), handItauBarcode,
		onlyDigits(handEnergyLine), handEnergyBarcode,
		tCollectionLine(tCollectionBarcode(t, '5', '8', 250075, "00010000000000000000000000000")),
	}
	for _, in := range inputs {
		for i := range in {
			bad := flipDigit(in, i)
			if bad[0] == '8' && in[0] != '8' || i == 2 && in[0] == '8' {
				continue // changes the kind or the check algorithm itself
			}
			if b, err := DecodeBoleto(bad, ref); err == nil {
				t.Errorf("%s (digit %d changed) accepted: %+v", bad, i, b)
			}
		}
	}
}

func TestDecodeBoletoReasons(t *testing.T) {
	ref := day("2026-01-01")
	line := onlyDigits(handItauLine)
	_, err := DecodeBoleto(flipDigit(line, 12), ref) // inside field 2
	if err == nil || !strings.Contains(err.Error(), "field 2 check digit") {
		t.Errorf("field 2 corruption: %v", err)
	}
	_, err = DecodeBoleto(flipDigit(line, 40), ref) // amount: only the general DV sees it
	if err == nil || !strings.Contains(err.Error(), "general check digit") || strings.Contains(err.Error(), "field") {
		t.Errorf("amount corruption: %v", err)
	}
	_, err = DecodeBoleto(flipDigit(onlyDigits(handEnergyLine), 14), ref)
	if err == nil || !strings.Contains(err.Error(), "block 2 check digit") {
		t.Errorf("block 2 corruption: %v", err)
	}
	if _, err := DecodeBoleto("1234", ref); err == nil {
		t.Error("short input accepted")
	}
	if _, err := DecodeBoleto(strings.Repeat("1", 48), ref); err == nil {
		t.Error("48 digits not starting with 8 accepted")
	}
	bad := []byte(handEnergyBarcode)
	bad[2] = '5'
	if _, err := DecodeBoleto(string(bad), ref); err == nil || !strings.Contains(err.Error(), "value identifier") {
		t.Errorf("value identifier 5: %v", err)
	}
}

func TestFindBoletosInText(t *testing.T) {
	ref := day("2026-01-01")
	bc := tBankBarcode(t, "033", "9", 1400, 15000, "9000001234567890123456101")
	line := tBankLine(bc)
	text := "Olá,\nsegue o boleto (Banco 033-7).\nLinha digitável:\n" + tFormatBankLine(line)[:24] + "\n" +
		tFormatBankLine(line)[24:] + "\nCódigo de barras: " + bc + "\n" +
		"Conta de luz: " + handEnergyLine + "\nVencimento 10/03/2026"
	hits := findBoletos(text, ref)
	if len(hits) != 3 {
		t.Fatalf("want 3 hits (line across a line break, barcode, energy), got %d: %+v", len(hits), hits)
	}
	for i, wantBC := range []string{bc, bc, handEnergyBarcode} {
		if hits[i].invalid != nil || hits[i].boleto.Barcode != wantBC {
			t.Errorf("hit %d: %+v", i, hits[i])
		}
	}
	if got := text[hits[0].start:hits[0].end]; onlyDigits(got) != line {
		t.Errorf("span of the line covers %q", got)
	}
}

func TestFindBoletosReportsInvalidOnlyWhenShaped(t *testing.T) {
	ref := day("2026-01-01")
	bad := flipDigit(handItauLine, 20)
	text := "Pague: " + bad + "\nProtocolo 123456789012345678901234567890, CNPJ 11.222.333/0001-81, 2 3 4 e telefone 11 99999-0000"
	hits := findBoletos(text, ref)
	if len(hits) != 1 || hits[0].invalid == nil {
		t.Fatalf("want exactly the one invalid line, got %+v", hits)
	}
	if hits[0].invalid.Kind != KindBank || hits[0].invalid.Digits != onlyDigits(bad) || !strings.Contains(hits[0].invalid.Reason, "check digit") {
		t.Errorf("invalid: %+v", hits[0].invalid)
	}
}

func TestFindBoletosSkipsNFeAccessKey(t *testing.T) {
	// A 44-digit number that happens to pass the bank barcode DV, labelled
	// as an NF-e access key, is not a boleto.
	bc := tBankBarcode(t, "352", "9", 1381, 100, "1234567890123456789012345")
	if hits := findBoletos("Chave de acesso: "+bc, day("2026-01-01")); len(hits) != 0 {
		t.Errorf("NF-e key read as a boleto: %+v", hits)
	}
	if hits := findBoletos("Código de barras: "+bc, day("2026-01-01")); len(hits) != 1 {
		t.Errorf("the same digits as a barcode were not found: %+v", hits)
	}
}
