package extract

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current output")

// goldenInput is an e-mail with every kind of finding in every part: bank
// and arrecadação boletos as lines and barcodes (with and without a due
// date, effective and reference values), broken lines, static and dynamic
// Pix codes and a broken one, numeric and alphanumeric CNPJs, CPFs,
// amounts, labelled dates, and attachments read, skipped and failed. Its
// fixtures are literal so the input cannot drift with the test helpers.
func goldenInput(t *testing.T) Input {
	t.Helper()
	latin1, err := charmap.ISO8859_1.NewEncoder().String("Cobrança de água\nValor: R$ 158,90\nVencimento: 20/03/2026\n" +
		"83670000001-8 58900001000-1 00000000000-0 00000000000-0\n" +
		"Taxa: 85950000025-6 00750001000-2 00000000000-0 00000000000-0\n")
	if err != nil {
		t.Fatal(err)
	}
	return Input{
		Subject: "Fatura 03/2026 — boleto 34191.09123 34567.880124 34567.890008 5 13810000123456",
		From:    "cobranca@example.com",
		Text: "Prezado cliente,\n" +
			"Linha digitável: 34191.09123 34567.880124 34567.890008 5 13810000123456\n" +
			"Código de barras: 03396140000000150009000001234567890123456101\n" +
			"Sem vencimento: 23793.38128 86000.000009 00004.000006 1 00000000000000\n" +
			"Linha com erro: 34121.09123 34567.880124 34567.890008 5 13810000123456\n" +
			"Beneficiário: ACME LTDA, CNPJ 11.222.333/0001-81; novo CNPJ 12ABC34501DE35\n" +
			"Sacado: CPF 529.982.247-25, outro 11144477735\n" +
			"Emissão: 01/02/2026   Vencimento: 10/03/2026 — Total R$ 1.234,56\n" +
			"Pago em 5 de fevereiro de 2026, valor a pagar: 89,90\n" +
			"Pix: 00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D\n" +
			"Pix com chave CPF: 00020126480014br.gov.bcb.pix0111529982247250211Mensalidade520400005303986540589.905802BR5906FULANO6006RECIFE62070503***63049DED\n",
		HTML: "<p>Pague com Pix:</p><p>00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D</p>" +
			"<p>Cobrança dinâmica: 00020101021226530014br.gov.bcb.pix2531qr.example.com/v2/cobv/9d36b84f52040000530398654061234.55802BR5917Empresa Ação LTDA6009São Paulo62170513FAT20260001236304D89C</p>" +
			"<p>Pix alterado: 00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulana de Tal6008BRASILIA62070503***63041D3D</p>" +
			"<p>Conta inválida: 83670000001-8 58200001000-1 00000000000-0 00000000000-0</p>",
		Attachments: []Attachment{
			{Filename: "agua.txt", ContentType: "text/plain; charset=iso-8859-1", Data: []byte(latin1)},
			{Filename: "nota.html", ContentType: "text/html", Data: []byte("<div>CPF&nbsp;529.982.247-25 — CNPJ 11.444.777/0001-61</div>")},
			{Filename: "boleto.pdf", ContentType: "application/pdf", Data: minimalPDF("Banco Santander - Boleto",
				"Linha digitavel: 34191.09123 34567.880124 34567.890008 5 13810000123456", "Vencimento: 10/03/2026  Valor: R$ 1.234,56")},
			{Filename: "boleto.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.4\nnot really a pdf\n%%EOF\n")},
			{Filename: "logo.png", ContentType: "image/png", Data: []byte("\x89PNG....")},
		},
		ReferenceDate: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
	}
}

// TestExtractJSONMatchesGolden pins the extractor's JSON, the output the
// e-mail agent stores and sends by webhook, byte for byte: a refactoring
// that changes a field's name, order or value fails here. Run with
// -update only when the output is meant to change.
func TestExtractJSONMatchesGolden(t *testing.T) {
	t.Parallel()
	got, err := json.MarshalIndent(Extract(goldenInput(t)), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "extract.golden.json")
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Extract's JSON differs from %s (rerun with -update only if that is intended):\n%s", path, got)
	}
	// The compact form, as stored and sent, is the same document.
	compact, err := json.Marshal(Extract(goldenInput(t)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(compact, buf.Bytes()) {
		t.Errorf("compact JSON differs from the golden file:\n got %s\nwant %s", compact, buf.Bytes())
	}
}
