// Package extracttest makes the documents the extractor's tests read.
package extracttest

import (
	"bytes"
	"fmt"

	"github.com/go-pdf/fpdf"
)

// TextPDF is a PDF of the given number of A4 pages, each of 70 lines of
// text (a compressed text layer: a few kilobytes for several pages, which
// is why a PDF's pages, not its bytes, say what reading it costs).
func TextPDF(pages int) ([]byte, error) {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 8)
	for pg := range pages {
		p.AddPage()
		for l := range 70 {
			p.CellFormat(0, 3.5, fmt.Sprintf("Linha %d da página %d: valor R$ 1.234,56, vencimento 10/03/2026", l, pg), "", 1, "", false, 0, "")
		}
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
