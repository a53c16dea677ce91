package extract

import (
	"bytes"
	"fmt"
	"mime"
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// AttachmentInfo lists one attachment and what the extractor did with
// it: Status "read" (its text was searched), "skipped" (a type it does
// not read, or too big) or "failed" (see Note). Pages is the number of
// PDF pages read.
type AttachmentInfo struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
	Status      string `json:"status"`
	Pages       int    `json:"pages"`
	Note        string `json:"note"`
}

// Attachment statuses.
const (
	AttachmentRead    = "read"
	AttachmentSkipped = "skipped"
	AttachmentFailed  = "failed"
)

// maxHTMLBytes caps the HTML parsed per part.
const maxHTMLBytes = 4 << 20

// Source names.
const (
	SourceSubject  = "subject"
	SourceBodyText = "text"
	SourceBodyHTML = "html"
)

// AttachmentSource is the Source of findings in an attachment.
func AttachmentSource(filename string) string { return "attachment:" + filename }

// readSources turns every readable part of in into text.
func readSources(in Input) ([]SourceText, []AttachmentInfo, []string) {
	var texts []SourceText
	var warnings []string
	add := func(source, text string) {
		text = strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\u00a0", " ")
		if len(text) > maxSourceBytes {
			warnings = append(warnings, fmt.Sprintf("%s: text cut at %d bytes", source, maxSourceBytes))
			text = cutUTF8(text, maxSourceBytes)
		}
		if strings.TrimSpace(text) != "" {
			texts = append(texts, SourceText{Source: source, Text: text})
		}
	}
	add(SourceSubject, in.Subject)
	add(SourceBodyText, in.Text)
	if in.HTML != "" {
		h := in.HTML
		if len(h) > maxHTMLBytes {
			warnings = append(warnings, fmt.Sprintf("html: body cut at %d bytes", maxHTMLBytes))
			h = cutUTF8(h, maxHTMLBytes)
		}
		add(SourceBodyHTML, HTMLToText(h))
	}
	atts := make([]AttachmentInfo, 0, len(in.Attachments))
	used := map[string]int{}
	for i, a := range in.Attachments {
		name := a.Filename
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if used[name]++; used[name] > 1 {
			name = fmt.Sprintf("%s#%d", name, used[name])
		}
		source := AttachmentSource(name)
		info := AttachmentInfo{Filename: a.Filename, ContentType: a.ContentType, Size: len(a.Data), Status: AttachmentSkipped}
		mediaType, params, _ := mime.ParseMediaType(a.ContentType)
		ext := strings.ToLower(path.Ext(a.Filename))
		switch {
		case isPDF(mediaType, ext, a.Data):
			if len(a.Data) > maxPDFBytes {
				info.Note = fmt.Sprintf("PDF larger than %d bytes, not read", maxPDFBytes)
				warnings = append(warnings, source+": "+info.Note)
				break
			}
			text, pages, truncated, err := pdfText(a.Data)
			info.Pages = pages
			if err != nil {
				info.Status, info.Note = AttachmentFailed, err.Error()
				warnings = append(warnings, source+": "+err.Error())
				break
			}
			info.Status = AttachmentRead
			if truncated {
				info.Note = fmt.Sprintf("only the first %d pages read", maxPDFPages)
				warnings = append(warnings, source+": "+info.Note)
			}
			if strings.TrimSpace(text) == "" {
				info.Note = "no text layer (scanned PDF?)"
			}
			add(source, text)
		case mediaType == "text/html" || ext == ".html" || ext == ".htm":
			info.Status = AttachmentRead
			h := decodeCharset(a.Data, params["charset"])
			if len(h) > maxHTMLBytes {
				warnings = append(warnings, fmt.Sprintf("%s: cut at %d bytes", source, maxHTMLBytes))
				h = cutUTF8(h, maxHTMLBytes)
			}
			add(source, HTMLToText(h))
		case mediaType == "text/plain" || ((mediaType == "" || mediaType == "application/octet-stream") && ext == ".txt"):
			info.Status = AttachmentRead
			add(source, decodeCharset(a.Data, params["charset"]))
		default:
			info.Note = "type not read"
		}
		atts = append(atts, info)
	}
	return texts, atts, warnings
}

func isPDF(mediaType, ext string, data []byte) bool {
	if mediaType == "application/pdf" || ext == ".pdf" {
		return true
	}
	return (mediaType == "" || mediaType == "application/octet-stream") && bytes.HasPrefix(data, []byte("%PDF-"))
}

// decodeCharset converts text in the declared charset to UTF-8. Without
// a usable declaration, valid UTF-8 stays as is and anything else is read
// as Windows-1252 (the usual Brazilian legacy encoding).
func decodeCharset(data []byte, charset string) string {
	if charset != "" {
		if enc, err := htmlindex.Get(charset); err == nil {
			if out, err := enc.NewDecoder().Bytes(data); err == nil {
				return string(out)
			}
		}
	}
	if utf8.Valid(data) {
		return string(data)
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return string(out)
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
