package braziltest

import "testing"

// TestBuildersReproduceHandVerifiedCodes: the builders, given the fields
// of the codes verified on paper, give those codes back, so fixtures
// built by them are right by an account that is not code.
func TestBuildersReproduceHandVerifiedCodes(t *testing.T) {
	t.Parallel()
	if got := BankBarcode(t, "341", "9", 1381, 123456, "1091234567880123456789000"); got != ItauBarcode {
		t.Errorf("Itaú barcode %s, want %s", got, ItauBarcode)
	}
	if got := FormatBankLine(BankLine(ItauBarcode)); got != ItauLine {
		t.Errorf("Itaú line %s, want %s", got, ItauLine)
	}
	if got := CollectionBarcode(t, '3', '6', 15890, "00010000000000000000000000000"); got != EnergyBarcode {
		t.Errorf("energy barcode %s, want %s", got, EnergyBarcode)
	}
	if got := FormatCollectionLine(CollectionLine(EnergyBarcode)); got != EnergyLine {
		t.Errorf("energy line %s, want %s", got, EnergyLine)
	}
	if got := OnlyDigits(ItauLine); len(got) != 47 {
		t.Errorf("OnlyDigits: %q", got)
	}
	if CRC("123456789") != "29B1" { // the published CRC-16/CCITT-FALSE check value
		t.Error("CRC of the check string is wrong")
	}
	if got := Pix(BCBExample[:len(BCBExample)-8]); got != BCBExample {
		t.Errorf("Pix rebuilds the manual's example as %s", got)
	}
	if got := TLV("59", "Ação"); got != "5904Ação" {
		t.Errorf("TLV counts bytes, not characters: %s", got)
	}
	if got := FlipDigit("1.2", 1); got != "1.5" {
		t.Errorf("FlipDigit: %s", got)
	}
}
