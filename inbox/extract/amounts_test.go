package extract

import (
	"slices"
	"testing"
)

func TestFindAmounts(t *testing.T) {
	t.Parallel()
	text := "Total: R$ 1.234,56\nR$1234,56 de novo; R$ 0,99; R$  12.345.678,90\n" +
		"Valor do documento 3.500,00\nvalor a pagar: 89,90\n" +
		"Quantidade 1.234,56 sem palavra-chave? não: 7,50 unidades\n" +
		"Desconto R$ -10,00; total de 2 itens; R$ 1.23,45 malformado"
	var got []int64
	for _, h := range findAmounts(text) {
		got = append(got, h.cents)
	}
	slices.Sort(got)
	want := []int64{99, 8990, 123456, 123456, 350000, 1234567890}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestExtractMergesAmounts(t *testing.T) {
	t.Parallel()
	r := Extract(Input{Subject: "Fatura R$ 1.234,56", Text: "Total R$1234,56\nOutro R$ 10,00", ReferenceDate: day("2026-01-01")})
	if len(r.Amounts) != 2 {
		t.Fatalf("amounts: %+v", r.Amounts)
	}
	a := r.Amounts[0]
	if a.Value != "1234.56" || a.Cents != 123456 || !slices.Equal(a.Sources, []string{"subject", "text"}) {
		t.Errorf("merged amount: %+v", a)
	}
	if r.Amounts[1].Value != "10.00" {
		t.Errorf("second amount: %+v", r.Amounts[1])
	}
}
