package extract

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkExtractTypicalEmail measures the offline extractor on what a
// supplier's billing e-mail usually is: a short text with a boleto line, a
// CNPJ, an amount and a date, and the same in an HTML body.
func BenchmarkExtractTypicalEmail(b *testing.B) {
	text := "Olá,\nSegue o boleto da fatura 123 emitida por ACME Ltda (CNPJ 11.222.333/0001-81).\n" +
		"Linha digitável: 34191.09123 34567.880124 34567.890008 5 13810000123456\nValor: R$ 1.234,56\nVencimento: 10/03/2026\n"
	in := Input{Subject: "Fatura 123", From: "cobranca@acme.example", Text: text,
		HTML: "<html><body><p>" + strings.ReplaceAll(text, "\n", "</p><p>") + "</p></body></html>", ReferenceDate: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	b.ReportAllocs()
	for b.Loop() {
		if r := Extract(in); len(r.Boletos) != 1 {
			b.Fatalf("boletos: %d", len(r.Boletos))
		}
	}
}

// BenchmarkExtractLongText measures the scan on 1 MB of text with nothing
// to find: the cost of an e-mail that is only long.
func BenchmarkExtractLongText(b *testing.B) {
	in := Input{Text: strings.Repeat("Prezados, segue em anexo o relatório mensal de atividades 2026. ", 16000)}
	b.SetBytes(int64(len(in.Text)))
	b.ReportAllocs()
	for b.Loop() {
		Extract(in)
	}
}
