// Package pagetexttest checks pages against the catalogue of package
// pagetext: that a template holds no words of its own (every word comes
// from the catalogue or from data), and that a rendered page speaks one
// language. The tests of oauth/server/pages and productkit/approval use it.
package pagetexttest

import (
	"io/fs"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/text/language"

	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// actionRE matches a template action ({{…}}), comments included.
var actionRE = regexp.MustCompile(`(?s)\{\{.*?\}\}`)

// visibleAttrs are the attributes a person reads (or hears).
var visibleAttrs = map[string]bool{"title": true, "alt": true, "placeholder": true, "aria-label": true, "label": true}

// RawText returns, for the templates of fsys matching pattern, every piece
// of text a person would see that is written in the template itself
// instead of coming from an action: text between tags, visible attributes
// (title, alt, placeholder, aria-label, label), and the value of an input
// button. Text without a letter (punctuation, "·") is allowed. Each is
// "file: text".
func RawText(fsys fs.FS, pattern string) ([]string, error) {
	files, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		src, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		// Actions become a mark that is not a letter: what is left is what
		// the template writes by itself.
		doc := actionRE.ReplaceAllString(string(src), "\u00a7")
		z := html.NewTokenizer(strings.NewReader(doc))
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			tok := z.Token()
			switch tt {
			case html.TextToken:
				if hasLetter(tok.Data) {
					out = append(out, f+": "+strings.TrimSpace(tok.Data))
				}
			case html.StartTagToken, html.SelfClosingTagToken:
				button := tok.Data == "input" && (attr(tok, "type") == "submit" || attr(tok, "type") == "button")
				for _, a := range tok.Attr {
					if (visibleAttrs[a.Key] || (button && a.Key == "value")) && hasLetter(a.Val) {
						out = append(out, f+": <"+tok.Data+" "+a.Key+"=\""+a.Val+"\">")
					}
				}
			}
		}
	}
	return out, nil
}

func attr(t html.Token, key string) string {
	for _, a := range t.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// Lang is the lang attribute of a page's <html> element.
func Lang(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return ""
		}
		if tok := z.Token(); (tt == html.StartTagToken) && tok.Data == "html" {
			return attr(tok, "lang")
		}
	}
}

// Visible is the text a person reads on a rendered page written in the
// page's own language: text nodes and visible attributes, leaving out the
// contents of <code>, <pre> and <title> (calls and data shown as they
// are) and of any element whose lang differs from the page's (a product's
// text kept in the language it was written in, marked so).
func Visible(page string) string {
	pageLang := Lang(page)
	z := html.NewTokenizer(strings.NewReader(page))
	var b strings.Builder
	// skip is the stack of open elements, true for those whose text is
	// left out.
	var stack []string
	var skipping []bool
	skipped := func() bool { return len(skipping) > 0 && skipping[len(skipping)-1] }
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return b.String()
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken:
			if voidElement(tok.Data) {
				collectAttrs(&b, tok, skipped())
				continue
			}
			lang := attr(tok, "lang")
			skip := skipped() || tok.Data == "code" || tok.Data == "pre" || tok.Data == "title" || (lang != "" && tok.Data != "html" && lang != pageLang)
			stack = append(stack, tok.Data)
			skipping = append(skipping, skip)
			collectAttrs(&b, tok, skip)
		case html.SelfClosingTagToken:
			collectAttrs(&b, tok, skipped())
		case html.EndTagToken:
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] == tok.Data {
					stack, skipping = stack[:i], skipping[:i]
					break
				}
			}
		case html.TextToken:
			if !skipped() {
				b.WriteString(tok.Data)
				b.WriteString(" ")
			}
		}
	}
}

func collectAttrs(b *strings.Builder, tok html.Token, skip bool) {
	if skip {
		return
	}
	for _, a := range tok.Attr {
		if visibleAttrs[a.Key] {
			b.WriteString(a.Val)
			b.WriteString(" ")
		}
	}
}

func voidElement(tag string) bool {
	switch tag {
	case "meta", "link", "input", "br", "hr", "img":
		return true
	}
	return false
}

// OtherLanguage returns the messages of the catalogue in the other
// language than tag (those that differ between the two, and have a
// letter) that text contains: a Portuguese page showing an English
// message, or the reverse.
func OtherLanguage(text string, tag language.Tag) []string {
	other := pagetext.English
	if tag == pagetext.English {
		other = pagetext.PortugueseBR
	}
	var out []string
	for _, k := range pagetext.Keys() {
		mine, theirs := pagetext.Raw(tag, k), pagetext.Raw(other, k)
		// Only the message's fixed part before its first argument: enough
		// to recognise it, whatever the arguments.
		theirs, _, _ = strings.Cut(theirs, "%")
		theirs = strings.TrimSpace(theirs)
		if len([]rune(theirs)) < 5 || !hasLetter(theirs) || strings.Contains(mine, theirs) {
			continue
		}
		if strings.Contains(text, theirs) {
			out = append(out, string(k)+": "+theirs)
		}
	}
	return out
}

// englishWords and portugueseWords are words common in one language and
// absent from the other's sentences on these pages: the last check that a
// page speaks one language, catching a sentence that is in neither
// catalogue.
var (
	englishWords    = []string{"the", "your", "you", "and", "was", "will", "this", "sign", "allow", "deny", "approve", "nothing", "not", "run", "action", "back"}
	portugueseWords = []string{"você", "sua", "seu", "não", "foi", "será", "para", "entre", "aprovar", "ação", "nada", "uma", "de", "com", "está"}
)

// wordRE splits text into words.
var wordRE = regexp.MustCompile(`[\p{L}_]+`)

// ForeignWords are the words of text that are common words of the other
// language than tag (see englishWords, portugueseWords).
func ForeignWords(text string, tag language.Tag) []string {
	list := englishWords
	if tag == pagetext.English {
		list = portugueseWords
	}
	var out []string
	for _, w := range wordRE.FindAllString(strings.ToLower(text), -1) {
		for _, f := range list {
			if w == f {
				out = append(out, w)
			}
		}
	}
	return out
}
