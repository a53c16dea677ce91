package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLToText renders an HTML body as the plain text a reader sees: script,
// style and head content dropped, entities decoded, block elements and
// <br> as line breaks, table cells separated by a space, whitespace
// collapsed as a browser would (except inside <pre>).
func HTMLToText(s string) string {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return ""
	}
	w := &textWriter{}
	w.walk(doc, false)
	return w.String()
}

// skippedElements hold no visible text.
var skippedElements = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Head: true, atom.Noscript: true,
	atom.Template: true, atom.Iframe: true, atom.Object: true, atom.Svg: true,
}

// blockElements start and end on their own line.
var blockElements = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Center: true, atom.Dd: true, atom.Div: true, atom.Dl: true, atom.Dt: true,
	atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true, atom.Footer: true,
	atom.Form: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true,
	atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true,
	atom.Section: true, atom.Table: true, atom.Tbody: true, atom.Thead: true,
	atom.Tfoot: true, atom.Tr: true, atom.Ul: true, atom.Caption: true, atom.Body: true,
}

// textWriter accumulates lines, collapsing spaces within a line.
type textWriter struct {
	b         strings.Builder
	pendingSp bool // a space is due before the next word
	lineEmpty bool // nothing written on the current line yet
	breaks    int  // consecutive line breaks written
}

func (w *textWriter) String() string { return strings.TrimSpace(w.b.String()) }

// newline ends the current line, if anything is on it (block boundary).
func (w *textWriter) newline() {
	if w.b.Len() == 0 || w.lineEmpty {
		return
	}
	w.b.WriteByte('\n')
	w.lineEmpty, w.pendingSp, w.breaks = true, false, 1
}

// forceNewline is <br>: a line break even on an empty line, at most one
// blank line in a row.
func (w *textWriter) forceNewline() {
	if w.b.Len() == 0 || w.breaks >= 2 {
		return
	}
	w.b.WriteByte('\n')
	w.lineEmpty, w.pendingSp = true, false
	w.breaks++
}

func (w *textWriter) space() {
	if !w.lineEmpty && w.b.Len() > 0 {
		w.pendingSp = true
	}
}

func (w *textWriter) write(s string) {
	if s == "" {
		return
	}
	if w.pendingSp {
		w.b.WriteByte(' ')
	}
	w.b.WriteString(s)
	w.pendingSp, w.lineEmpty, w.breaks = false, false, 0
}

func (w *textWriter) text(s string, pre bool) {
	s = strings.ReplaceAll(s, "\u00a0", " ")
	if pre {
		for i, line := range strings.Split(s, "\n") {
			if i > 0 {
				w.forceNewline()
			}
			w.write(line)
		}
		return
	}
	if s != "" && isHTMLSpace(s[0]) {
		w.space()
	}
	for i, word := range strings.Fields(s) {
		if i > 0 {
			w.space()
		}
		w.write(word)
	}
	if s != "" && isHTMLSpace(s[len(s)-1]) {
		w.space()
	}
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func (w *textWriter) walk(n *html.Node, pre bool) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data, pre)
		return
	case html.ElementNode:
		if skippedElements[n.DataAtom] {
			return
		}
		switch n.DataAtom {
		case atom.Br:
			w.forceNewline()
			return
		case atom.Pre:
			pre = true
		}
	case html.CommentNode, html.DoctypeNode:
		return
	}
	block := n.Type == html.ElementNode && blockElements[n.DataAtom]
	if block {
		w.newline()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, pre)
	}
	if block {
		w.newline()
	}
	if n.Type == html.ElementNode && (n.DataAtom == atom.Td || n.DataAtom == atom.Th) {
		w.space()
	}
}
