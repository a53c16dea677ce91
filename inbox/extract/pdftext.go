package extract

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfText returns the text of a text-based PDF (scanned PDFs have none).
// The PDF library panics on some malformed files; a panic becomes the
// returned error. pages counts the pages read; truncated reports that
// pages were left unread.
func pdfText(data []byte) (text string, pages int, truncated bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, pages, truncated, err = "", 0, false, fmt.Errorf("malformed PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", 0, false, fmt.Errorf("unreadable PDF: %w", err)
	}
	list, more := pdfPages(r.Trailer().Key("Root").Key("Pages"), maxPDFPages)
	pages, truncated = len(list), more
	var b strings.Builder
	for i, p := range list {
		t, err := p.GetPlainText(nil)
		if err != nil {
			return "", pages, false, fmt.Errorf("page %d: %w", i+1, err)
		}
		b.WriteString(t)
		b.WriteByte('\n')
		if b.Len() > maxSourceBytes {
			truncated = truncated || i < len(list)-1
			break
		}
	}
	return b.String(), pages, truncated, nil
}

// maxPDFTreeVisits bounds the walk of a page tree: a malformed file can
// make it cyclic (a Pages node among its own kids), which sends the
// library's own page lookup into an endless loop.
const maxPDFTreeVisits = 2000

// pdfPages collects up to limit leaf pages of the page tree rooted at
// root, depth-first, visiting at most maxPDFTreeVisits nodes. more
// reports that pages (or nodes) were left unvisited.
func pdfPages(root pdf.Value, limit int) (pages []pdf.Page, more bool) {
	visits := 0
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if len(pages) >= limit || visits >= maxPDFTreeVisits || depth > 32 {
			more = true
			return
		}
		visits++
		switch v.Key("Type").Name() {
		case "Pages":
			kids := v.Key("Kids")
			for i := 0; i < kids.Len(); i++ {
				walk(kids.Index(i), depth+1)
			}
		case "Page":
			if v.Key("Contents").Kind() != pdf.Null {
				pages = append(pages, pdf.Page{V: v})
			}
		}
	}
	walk(root, 0)
	return pages, more
}
