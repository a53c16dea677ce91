package extract

import (
	"slices"
	"testing"
)

func TestFindDates(t *testing.T) {
	t.Parallel()
	text := "Emissão: 01/03/2026   Vencimento: 10/03/2026\n" +
		"Pagamento efetuado em 2026-03-09. Vence em 5/4/26\n" +
		"São Paulo, 10 de março de 2026. Em 1º de Abril de 2026 há reajuste.\n" +
		"Inválidas: 31/02/2026, 2026-13-01, 99/99/9999, 12/2026"
	var got []string
	for _, h := range findDates(text) {
		got = append(got, h.date+"|"+h.label)
	}
	slices.Sort(got)
	want := []string{
		"2026-03-01|issue_date",
		"2026-03-09|payment_date",
		"2026-03-10|",
		"2026-03-10|due_date",
		"2026-04-01|",
		"2026-04-05|due_date",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestExtractKeepsLabelledDateOnly(t *testing.T) {
	t.Parallel()
	r := Extract(Input{Text: "Vencimento: 10/03/2026\nSão Paulo, 10 de março de 2026\n2026-03-11", ReferenceDate: day("2026-01-01")})
	var got []string
	for _, d := range r.Dates {
		got = append(got, d.Date+"|"+d.Label)
	}
	if !slices.Equal(got, []string{"2026-03-10|due_date", "2026-03-11|"}) {
		t.Errorf("dates %v", got)
	}
}
