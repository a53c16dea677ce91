package extract

import (
	"strings"
	"testing"
)

// TestLongTextKeepsBoletosAndBoundsPatterns: in a text longer than
// maxPatternScan, a boleto at the very end is still found (the digit scan
// reads everything), an amount past the bound is not, and a warning says
// where the pattern search stopped.
func TestLongTextKeepsBoletosAndBoundsPatterns(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("texto sem nada de interessante aqui. ", maxPatternScan/36+10)
	r := Extract(Input{Text: pad + "\nLinha digitável: 34191.09123 34567.880124 34567.890008 5 13810000123456\nValor: R$ 9.876,54\n"})
	if len(r.Boletos) != 1 {
		t.Fatalf("boletos: %+v", r.Boletos)
	}
	for _, a := range r.Amounts {
		if a.Cents == 987654 {
			t.Fatal("an amount past the bound was searched")
		}
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "256 KiB") {
		t.Fatalf("warnings: %v", r.Warnings)
	}
}
