package extract

import (
	"testing"

	"github.com/kobana/kobana-mcp/inbox/extract/extracttest"
)

// textPDF is extracttest.TextPDF, failing t on an error.
func textPDF(t testing.TB, pages int) []byte {
	t.Helper()
	b, err := extracttest.TextPDF(pages)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPDFPages: the pages Extract reads, PDF by PDF — by content type, by
// extension, by magic bytes — up to its limit per PDF; other attachments,
// and a file that is no PDF, count nothing; the count agrees with what
// Extract reports for each attachment.
func TestPDFPages(t *testing.T) {
	t.Parallel()
	one, five, many := textPDF(t, 1), textPDF(t, 5), textPDF(t, maxPDFPages+2)
	for _, c := range []struct {
		name string
		in   Input
		want int
	}{
		{"none", Input{Text: "sem anexo"}, 0},
		{"one page by type", Input{Attachments: []Attachment{{Filename: "boleto", ContentType: "application/pdf", Data: one}}}, 1},
		{"five pages by extension", Input{Attachments: []Attachment{{Filename: "Fatura.PDF", ContentType: "application/octet-stream", Data: five}}}, 5},
		{"by magic bytes", Input{Attachments: []Attachment{{Filename: "anexo", Data: five}}}, 5},
		{"two PDFs", Input{Attachments: []Attachment{{Filename: "a.pdf", Data: one}, {Filename: "b.pdf", Data: five}}}, 6},
		{"past the limit", Input{Attachments: []Attachment{{Filename: "longo.pdf", Data: many}}}, maxPDFPages},
		{"not a PDF", Input{Attachments: []Attachment{{Filename: "nota.txt", ContentType: "text/plain", Data: []byte("%PDF-1.4 só texto")}}}, 0},
		{"a broken PDF", Input{Attachments: []Attachment{{Filename: "x.pdf", Data: []byte("%PDF-1.4 quebrado")}}}, 0},
	} {
		got := PDFPages(c.in)
		if got != c.want {
			t.Errorf("%s: %d pages, want %d", c.name, got, c.want)
		}
		read := 0
		for _, a := range Extract(c.in).Attachments {
			read += a.Pages
		}
		if read != got {
			t.Errorf("%s: PDFPages says %d, Extract read %d", c.name, got, read)
		}
	}
}
