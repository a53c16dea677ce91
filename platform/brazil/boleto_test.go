package brazil

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
)

var day = braziltest.Day

// TestDecodeBoletoHandVerifiedLines pins the decoder to the FEBRABAN
// layouts with lines whose check digits were computed on paper
// (braziltest.ItauLine, braziltest.EnergyLine), not by code.
func TestDecodeBoletoHandVerifiedLines(t *testing.T) {
	t.Parallel()
	ref := day("2026-02-01")
	b, err := DecodeBoleto(braziltest.ItauLine, ref)
	if err != nil {
		t.Fatal(err)
	}
	want := Boleto{
		Kind: KindBank, DigitableLine: onlyDigits(braziltest.ItauLine), FormattedLine: braziltest.ItauLine,
		Barcode: braziltest.ItauBarcode, FoundAs: FoundAsLine, BankCode: "341", BankName: "Itaú Unibanco",
		CurrencyCode: "9", ValueType: "effective", Amount: "1234.56", AmountCents: 123456,
		DueFactor: 1381, DueDate: "2026-03-10",
	}
	if b != want {
		t.Errorf("Itaú line:\n got %+v\nwant %+v", b, want)
	}

	c, err := DecodeBoleto(braziltest.EnergyLine, ref)
	if err != nil {
		t.Fatal(err)
	}
	wantC := Boleto{
		Kind: KindCollection, DigitableLine: onlyDigits(braziltest.EnergyLine), FormattedLine: braziltest.EnergyLine,
		Barcode: braziltest.EnergyBarcode, FoundAs: FoundAsLine, Segment: "3", SegmentName: "energia_eletrica_e_gas",
		ValueType: "effective", Amount: "158.90", AmountCents: 15890,
	}
	if c != wantC {
		t.Errorf("energy line:\n got %+v\nwant %+v", c, wantC)
	}

	// The barcodes decode to the same boletos, found as barcodes.
	fromBC, err := DecodeBoleto(braziltest.ItauBarcode, ref)
	if err != nil || fromBC.DigitableLine != want.DigitableLine || fromBC.FoundAs != FoundAsBarcode {
		t.Errorf("Itaú barcode: %+v, %v", fromBC, err)
	}
	fromBC, err = DecodeBoleto(braziltest.EnergyBarcode, ref)
	if err != nil || fromBC.DigitableLine != wantC.DigitableLine || fromBC.FoundAs != FoundAsBarcode {
		t.Errorf("energy barcode: %+v, %v", fromBC, err)
	}
}

func TestDecodeBoletoGeneratedBankLines(t *testing.T) {
	t.Parallel()
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
		bc := braziltest.BankBarcode(t, c.bank, "9", c.factor, c.cents, c.free)
		line := braziltest.BankLine(bc)
		for _, form := range []string{line, braziltest.FormatBankLine(line), bc} {
			b, err := DecodeBoleto(form, ref)
			if err != nil {
				t.Errorf("%s: %v", form, err)
				continue
			}
			if b.Barcode != bc || b.DigitableLine != line || b.AmountCents != c.cents || b.DueDate != c.due || b.BankCode != c.bank {
				t.Errorf("%s: got %+v", form, b)
			}
			if b.FormattedLine != braziltest.FormatBankLine(line) {
				t.Errorf("formatted %q, want %q", b.FormattedLine, braziltest.FormatBankLine(line))
			}
		}
	}
}

func TestDecodeBoletoGeneratedCollectionLines(t *testing.T) {
	t.Parallel()
	for _, vid := range []byte{'6', '7', '8', '9'} {
		for _, rest := range []string{"00010000000000000000000000000", "12345678901234567890123456789", "98765432109876543210987654321"} {
			bc := braziltest.CollectionBarcode(t, '2', vid, 4321, rest)
			line := braziltest.CollectionLine(bc)
			for _, form := range []string{line, braziltest.FormatCollectionLine(line), bc} {
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
	t.Parallel()
	ref := day("2026-01-01")
	inputs := []string{
		onlyDigits(braziltest.ItauLine), braziltest.ItauBarcode,
		onlyDigits(braziltest.EnergyLine), braziltest.EnergyBarcode,
		braziltest.CollectionLine(braziltest.CollectionBarcode(t, '5', '8', 250075, "00010000000000000000000000000")),
	}
	for _, in := range inputs {
		for i := range in {
			bad := braziltest.FlipDigit(in, i)
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
	t.Parallel()
	ref := day("2026-01-01")
	line := onlyDigits(braziltest.ItauLine)
	_, err := DecodeBoleto(braziltest.FlipDigit(line, 12), ref) // inside field 2
	if err == nil || !strings.Contains(err.Error(), "field 2 check digit") {
		t.Errorf("field 2 corruption: %v", err)
	}
	_, err = DecodeBoleto(braziltest.FlipDigit(line, 40), ref) // amount: only the general DV sees it
	if err == nil || !strings.Contains(err.Error(), "general check digit") || strings.Contains(err.Error(), "field") {
		t.Errorf("amount corruption: %v", err)
	}
	_, err = DecodeBoleto(braziltest.FlipDigit(onlyDigits(braziltest.EnergyLine), 14), ref)
	if err == nil || !strings.Contains(err.Error(), "block 2 check digit") {
		t.Errorf("block 2 corruption: %v", err)
	}
	if _, err := DecodeBoleto("1234", ref); err == nil {
		t.Error("short input accepted")
	}
	if _, err := DecodeBoleto(strings.Repeat("1", 48), ref); err == nil {
		t.Error("48 digits not starting with 8 accepted")
	}
	// FEBRABAN's segment table has 1–7 and 9: segments 0 and 8 are refused
	// even with every check digit right, as a barcode and as a line.
	for _, seg := range []byte{'0', '8'} {
		bc := braziltest.CollectionBarcode(t, seg, '8', 4321, "00010000000000000000000000000")
		for _, form := range []string{bc, braziltest.CollectionLine(bc)} {
			if _, err := DecodeBoleto(form, ref); err == nil || !strings.Contains(err.Error(), "segment "+string(seg)+" is not in FEBRABAN's arrecadação table") {
				t.Errorf("segment %c (%s): %v", seg, form, err)
			}
		}
	}
	for _, seg := range []byte{'1', '2', '3', '4', '5', '6', '7', '9'} {
		if _, err := DecodeBoleto(braziltest.CollectionBarcode(t, seg, '8', 4321, "00010000000000000000000000000"), ref); err != nil {
			t.Errorf("segment %c refused: %v", seg, err)
		}
	}
	bad := []byte(braziltest.EnergyBarcode)
	bad[2] = '5'
	if _, err := DecodeBoleto(string(bad), ref); err == nil || !strings.Contains(err.Error(), "value identifier") {
		t.Errorf("value identifier 5: %v", err)
	}
}
