// Package pagetext is the one catalogue of the words on the pages a person
// sees — the built-in authorization server's sign-in, consent and error
// pages (oauth/server/pages) and the approval pages (productkit/approval)
// — in Brazilian Portuguese, the default (the products' users are
// Brazilian companies), and in English, picked by the request's
// Accept-Language (docs/decisions.md "The pages' language").
//
// The catalogue is a golang.org/x/text/message/catalog built from one
// table (catalogue.go) that holds every message in both languages side by
// side; a Printer (For) formats its messages, plurals included, in the
// language matched by golang.org/x/text/language. Templates call
// Printer.T with a key; Go code calls Printer.Say with a Key constant
// (keys.go). Nothing a page shows is written anywhere else: the pages'
// tests (pagetexttest) refuse raw text in their templates.
package pagetext

import (
	"fmt"
	"html"
	"html/template"
	"net/http"
	"strings"
	"time"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Key names a message of the catalogue.
type Key string

// The languages of the pages: Brazilian Portuguese first, the default
// when the browser asks for nothing the catalogue has.
var (
	PortugueseBR = language.BrazilianPortuguese
	English      = language.English
)

// languages are the catalogue's languages, the default first.
var languages = []language.Tag{PortugueseBR, English}

// matcher picks one of languages for an Accept-Language header.
var matcher = language.NewMatcher(languages)

// built is the catalogue: every entry of the table in both languages.
var built = build()

// Printer formats the catalogue's messages in one language.
type Printer struct {
	tag language.Tag
	p   *message.Printer
}

// printers are the two Printers, made once.
var printers = map[language.Tag]*Printer{
	PortugueseBR: {tag: PortugueseBR, p: message.NewPrinter(PortugueseBR, message.Catalog(built))},
	English:      {tag: English, p: message.NewPrinter(English, message.Catalog(built))},
}

// For is the Printer of the language r's Accept-Language header matches
// best, Brazilian Portuguese when it names none of the catalogue's (or
// there is no header).
func For(r *http.Request) *Printer {
	return ForHeader(r.Header.Get("Accept-Language"))
}

// ForHeader is For of an Accept-Language header's value.
func ForHeader(acceptLanguage string) *Printer {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return printers[PortugueseBR]
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return printers[PortugueseBR]
	}
	return printers[languages[i]]
}

// In is the Printer of tag, which must be PortugueseBR or English
// (anything else gets Brazilian Portuguese).
func In(tag language.Tag) *Printer {
	if p, ok := printers[tag]; ok {
		return p
	}
	return printers[PortugueseBR]
}

// Lang is the language's BCP 47 tag, for <html lang>: "pt-BR" or "en".
func (p *Printer) Lang() string { return p.tag.String() }

// Tag is the Printer's language.
func (p *Printer) Tag() language.Tag { return p.tag }

// T is the message key with args, for templates: a key the catalogue does
// not hold is an error, so the page fails to render instead of showing a
// key.
func (p *Printer) T(key Key, args ...any) (string, error) {
	if _, ok := table[key]; !ok {
		return "", fmt.Errorf("pagetext: no message %q in the catalogue", key)
	}
	return p.p.Sprintf(string(key), args...), nil
}

// Say is the message key with args, for Go code naming a Key constant
// (keys.go; a test checks each is in the catalogue).
func (p *Printer) Say(key Key, args ...any) string {
	return p.p.Sprintf(string(key), args...)
}

// Strong is T with each argument set in bold: the message and the
// arguments are escaped, then each argument wrapped in <strong>. Templates
// use it where a sentence names a client, a product or a person.
func (p *Printer) Strong(key Key, args ...any) (template.HTML, error) {
	if _, ok := table[key]; !ok {
		return "", fmt.Errorf("pagetext: no message %q in the catalogue", key)
	}
	marks := make([]any, len(args))
	for i := range args {
		marks[i] = fmt.Sprintf("\x00%d\x00", i)
	}
	out := html.EscapeString(p.p.Sprintf(string(key), marks...))
	for i, a := range args {
		out = strings.Replace(out, fmt.Sprintf("\x00%d\x00", i), "<strong>"+html.EscapeString(fmt.Sprint(a))+"</strong>", 1)
	}
	return template.HTML(out), nil
}

// Pick is a product's own text (a Phrase) in the Printer's language.
func (p *Printer) Pick(ph Phrase) string {
	if p.tag == English && ph.EN != "" {
		return ph.EN
	}
	if ph.PT != "" {
		return ph.PT
	}
	return ph.EN
}

// Minutes says how long is left until an instant d from now, rounded up to
// the minute: "em 10 minutos" / "in 10 minutes", "em menos de 1 minuto"
// under a minute.
func (p *Printer) Minutes(d time.Duration) string {
	if d <= time.Minute {
		return p.Say(KeyInLessThanAMinute)
	}
	return p.Say(KeyInMinutes, int((d+time.Minute-1)/time.Minute))
}

// Time is an instant in loc, as the pages show times: day, month, year,
// hour, minute and second, and the zone ("14/03/2026 15:04:05 -03").
func (p *Printer) Time(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(p.Say(KeyTimeLayout))
}

// Phrase is a text a product gives a page (a scope's description, who asks
// for an approval) in both of the catalogue's languages; Printer.Pick
// chooses. A product's texts live with the product; the pages' own words
// live in the catalogue.
type Phrase struct {
	// PT is the Brazilian Portuguese text, EN the English one.
	PT, EN string
}

// entry is one message of the table in both languages. A message with
// a singular form (ptOne, enOne) selects on its first argument, an
// integer, by the language's plural rules.
type entry struct {
	pt, en       string
	ptOne, enOne string
}

// build makes the catalogue from the table.
func build() *catalog.Builder {
	b := catalog.NewBuilder()
	for k, e := range table {
		set(b, PortugueseBR, k, e.pt, e.ptOne)
		set(b, English, k, e.en, e.enOne)
	}
	return b
}

func set(b *catalog.Builder, tag language.Tag, k Key, other, one string) {
	var err error
	if one == "" {
		err = b.SetString(tag, string(k), other)
	} else {
		err = b.Set(tag, string(k), plural.Selectf(1, "%d", plural.One, one, plural.Other, other))
	}
	if err != nil {
		// The table is a literal of this package; a message the catalogue
		// cannot hold is a programming error caught by any test.
		panic(fmt.Sprintf("pagetext: message %q: %v", k, err))
	}
}

// Keys are every key of the catalogue, for tests.
func Keys() []Key {
	out := make([]Key, 0, len(table))
	for k := range table {
		out = append(out, k)
	}
	return out
}

// Raw is the message key in lang as written in the table, unformatted
// ("" when there is none), for tests.
func Raw(tag language.Tag, key Key) string {
	e := table[key]
	if tag == English {
		return e.en
	}
	return e.pt
}
