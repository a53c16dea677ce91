package extract

import (
	"encoding/json"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
)

// FuzzExtract feeds arbitrary bodies and attachments to Extract: it must
// never panic and must always produce a marshalable Result with no valid
// finding that fails its own validation.
func FuzzExtract(f *testing.F) {
	f.Add("Boleto "+braziltest.ItauLine, "<p>"+braziltest.BCBExample+"</p>", []byte(nil), "text/plain")
	f.Add(braziltest.EnergyLine, "<table><tr><td>R$ 1,00", []byte("CNPJ 12.ABC.345/01DE-35 vencimento 10 de março de 2026"), "text/plain")
	f.Add("000201260014br.gov.bcb.pix", "<script>", minimalPDF("Linha "+braziltest.ItauLine), "application/pdf")
	f.Add("", "", []byte("%PDF-1.4\n1 0 obj << /Type /Pages /Kids [1 0 R] /Count 9 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"), "application/pdf")
	f.Add("0002010102", "&#0;<pre>\r\n", []byte{0xff, 0xfe, 0x00}, "text/html; charset=utf-16")
	f.Fuzz(func(t *testing.T, text, html string, data []byte, contentType string) {
		r := Extract(Input{
			Subject:       text,
			Text:          text,
			HTML:          html,
			Attachments:   []Attachment{{Filename: "a", ContentType: contentType, Data: data}},
			ReferenceDate: day("2026-01-01"),
		})
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
		for _, b := range r.Boletos {
			if _, err := brazil.DecodeBoleto(b.DigitableLine, day("2026-01-01")); err != nil {
				t.Fatalf("reported boleto %s fails: %v", b.DigitableLine, err)
			}
		}
		for _, p := range r.Pix {
			if _, err := brazil.DecodePix(p.Payload); err != nil {
				t.Fatalf("reported pix %q fails: %v", p.Payload, err)
			}
		}
		for _, d := range r.Documents {
			if !brazil.ValidCNPJ(d.Number) && !brazil.ValidCPF(d.Number) {
				t.Fatalf("reported document %s fails", d.Number)
			}
		}
	})
}
