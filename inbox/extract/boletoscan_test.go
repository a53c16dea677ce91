package extract

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
)

func TestFindBoletosInText(t *testing.T) {
	t.Parallel()
	ref := day("2026-01-01")
	bc := braziltest.BankBarcode(t, "033", "9", 1400, 15000, "9000001234567890123456101")
	line := braziltest.BankLine(bc)
	text := "Olá,\nsegue o boleto (Banco 033-7).\nLinha digitável:\n" + braziltest.FormatBankLine(line)[:24] + "\n" +
		braziltest.FormatBankLine(line)[24:] + "\nCódigo de barras: " + bc + "\n" +
		"Conta de luz: " + braziltest.EnergyLine + "\nVencimento 10/03/2026"
	hits := findBoletos(text, ref)
	if len(hits) != 3 {
		t.Fatalf("want 3 hits (line across a line break, barcode, energy), got %d: %+v", len(hits), hits)
	}
	for i, wantBC := range []string{bc, bc, braziltest.EnergyBarcode} {
		if hits[i].invalid != nil || hits[i].boleto.Barcode != wantBC {
			t.Errorf("hit %d: %+v", i, hits[i])
		}
	}
	if got := text[hits[0].start:hits[0].end]; braziltest.OnlyDigits(got) != line {
		t.Errorf("span of the line covers %q", got)
	}
}

func TestFindBoletosReportsInvalidOnlyWhenShaped(t *testing.T) {
	t.Parallel()
	ref := day("2026-01-01")
	bad := braziltest.FlipDigit(braziltest.ItauLine, 20)
	text := "Pague: " + bad + "\nProtocolo 123456789012345678901234567890, CNPJ 11.222.333/0001-81, 2 3 4 e telefone 11 99999-0000"
	hits := findBoletos(text, ref)
	if len(hits) != 1 || hits[0].invalid == nil {
		t.Fatalf("want exactly the one invalid line, got %+v", hits)
	}
	if hits[0].invalid.Kind != brazil.KindBank || hits[0].invalid.Digits != braziltest.OnlyDigits(bad) || !strings.Contains(hits[0].invalid.Reason, "check digit") {
		t.Errorf("invalid: %+v", hits[0].invalid)
	}
}

func TestFindBoletosSkipsNFeAccessKey(t *testing.T) {
	t.Parallel()
	// A 44-digit number that happens to pass the bank barcode DV, labelled
	// as an NF-e access key, is not a boleto.
	bc := braziltest.BankBarcode(t, "352", "9", 1381, 100, "1234567890123456789012345")
	if hits := findBoletos("Chave de acesso: "+bc, day("2026-01-01")); len(hits) != 0 {
		t.Errorf("NF-e key read as a boleto: %+v", hits)
	}
	if hits := findBoletos("Código de barras: "+bc, day("2026-01-01")); len(hits) != 1 {
		t.Errorf("the same digits as a barcode were not found: %+v", hits)
	}
}

// An arrecadação line of segment 0 or 8 is no boleto, whatever its check
// digits (FEBRABAN's segment table has 1–7 and 9): it is reported invalid
// with that reason, never extracted as a boleto.
func TestFindBoletosRefusesUnknownSegments(t *testing.T) {
	t.Parallel()
	ref := day("2026-01-01")
	for _, seg := range []byte{'0', '8'} {
		bc := braziltest.CollectionBarcode(t, seg, '8', 4321, "00010000000000000000000000000")
		hits := findBoletos("Conta: "+braziltest.FormatCollectionLine(braziltest.CollectionLine(bc))+"\n", ref)
		if len(hits) != 1 || hits[0].invalid == nil || !strings.Contains(hits[0].invalid.Reason, "segment "+string(seg)) {
			t.Errorf("segment %c: %+v", seg, hits)
		}
	}
}
