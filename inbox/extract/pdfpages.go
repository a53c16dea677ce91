package extract

import (
	"bytes"
	"mime"
	"path"
	"strings"

	"github.com/ledongthuc/pdf"
)

// PDFPages is how many PDF pages Extract would read in in's attachments:
// each PDF's pages up to its limit (maxPDFPages), found from the page
// trees alone, without reading any text. A page of text takes Extract
// milliseconds to read and PDFs compress (three dense pages are a few
// kilobytes), so a message's size does not bound its extraction's time;
// its pages do. A PDF the library cannot open counts nothing (Extract
// gives up on it at once); one it panics on counts as maxPDFPages.
func PDFPages(in Input) int {
	n := 0
	for _, a := range in.Attachments {
		mediaType, _, _ := mime.ParseMediaType(a.ContentType)
		if !isPDF(mediaType, strings.ToLower(path.Ext(a.Filename)), a.Data) || len(a.Data) > maxPDFBytes {
			continue
		}
		n += pdfPageCount(a.Data)
	}
	return n
}

// pdfPageCount counts the pages pdfText would read in data.
func pdfPageCount(data []byte) (pages int) {
	defer func() {
		if recover() != nil {
			pages = maxPDFPages
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return 0
	}
	list, _ := pdfPages(r.Trailer().Key("Root").Key("Pages"), maxPDFPages)
	return len(list)
}
