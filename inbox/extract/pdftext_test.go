package extract

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
)

// minimalPDF writes a valid one-page PDF by hand: a Helvetica (WinAnsi)
// text object per line, an xref table with the real byte offsets, and a
// trailer. It is what a boleto generator's text layer boils down to.
func minimalPDF(lines ...string) []byte {
	return pdfFromObjects(pageObjects(lines...))
}

func pageObjects(lines ...string) []string {
	var content strings.Builder
	for i, l := range lines {
		l = strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(l)
		fmt.Fprintf(&content, "BT /F1 10 Tf 40 %d Td (%s) Tj ET\n", 800-14*i, l)
	}
	return []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
}

// pdfFromObjects numbers objects from 1 (the first is the catalog) and
// writes the file with its xref table.
func pdfFromObjects(objects []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

func TestPDFAttachmentBoletoIsFound(t *testing.T) {
	t.Parallel()
	data := minimalPDF("Banco Itau S.A. - Boleto", "Linha digitavel: "+braziltest.ItauLine, "Vencimento: 10/03/2026  Valor: R$ 1.234,56", "Beneficiario CNPJ 11.222.333/0001-81")
	if got := data[len(data)-6:]; string(got) != "%%EOF\n" {
		t.Fatalf("fixture trailer %q", got)
	}
	text, pages, truncated, err := pdfText(data)
	if err != nil || pages != 1 || truncated {
		t.Fatalf("pdfText: pages %d truncated %v err %v", pages, truncated, err)
	}
	if !strings.Contains(text, braziltest.ItauLine) {
		t.Fatalf("line not in the PDF text: %q", text)
	}
	r := Extract(Input{
		Subject:       "Seu boleto",
		Attachments:   []Attachment{{Filename: "boleto.pdf", ContentType: "application/pdf", Data: data}},
		ReferenceDate: day("2026-02-01"),
	})
	if len(r.Boletos) != 1 || r.Boletos[0].Barcode != braziltest.ItauBarcode || r.Boletos[0].Sources[0] != "attachment:boleto.pdf" {
		t.Fatalf("boletos: %+v (warnings %v)", r.Boletos, r.Warnings)
	}
	if len(r.Attachments) != 1 || r.Attachments[0].Status != AttachmentRead || r.Attachments[0].Pages != 1 {
		t.Errorf("attachments: %+v", r.Attachments)
	}
	if len(r.Documents) != 1 || r.Documents[0].Number != "11222333000181" {
		t.Errorf("documents: %+v", r.Documents)
	}
	if len(r.Dates) != 1 || r.Dates[0].Label != LabelDueDate || len(r.Amounts) != 1 || r.Amounts[0].Cents != 123456 {
		t.Errorf("dates %+v amounts %+v", r.Dates, r.Amounts)
	}
}

func TestMalformedPDFBecomesAWarning(t *testing.T) {
	t.Parallel()
	good := minimalPDF("Linha: " + braziltest.ItauLine)
	inputs := map[string][]byte{
		"garbage":           []byte("%PDF-1.4\nthis is not a pdf"),
		"truncated":         good[:len(good)/2],
		"corrupted xref":    bytes.Replace(good, []byte("xref"), []byte("xyzw"), 1),
		"bad stream length": bytes.Replace(good, []byte("/Length "), []byte("/Length 9"), 1),
	}
	for name, data := range inputs {
		r := Extract(Input{Attachments: []Attachment{{Filename: "x.pdf", ContentType: "application/pdf", Data: data}}})
		if len(r.Attachments) != 1 {
			t.Fatalf("%s: attachments %+v", name, r.Attachments)
		}
		if r.Attachments[0].Status == AttachmentFailed && len(r.Warnings) == 0 {
			t.Errorf("%s: failed without a warning", name)
		}
	}
	r := Extract(Input{Attachments: []Attachment{{Filename: "x.pdf", ContentType: "application/pdf", Data: []byte("garbage")}}})
	if r.Attachments[0].Status != AttachmentFailed || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "attachment:x.pdf") {
		t.Errorf("garbage PDF: %+v %v", r.Attachments, r.Warnings)
	}
}

// A page tree that contains itself must not hang the reader (the PDF
// library's own page lookup loops forever on it).
func TestCyclicPDFPageTreeTerminates(t *testing.T) {
	t.Parallel()
	objs := pageObjects("Linha: " + braziltest.ItauLine)
	objs[1] = "<< /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 3 >>"
	r := Extract(Input{Attachments: []Attachment{{Filename: "loop.pdf", ContentType: "application/pdf", Data: pdfFromObjects(objs)}},
		ReferenceDate: day("2026-02-01")})
	if len(r.Boletos) != 1 || r.Attachments[0].Status != AttachmentRead {
		t.Errorf("boletos %+v attachments %+v", r.Boletos, r.Attachments)
	}
}
