package extract

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/kobana/kobana-mcp/platform/brazil"
)

// maxPatternScan bounds the text of one source that the regular-expression
// finders read (about 50 ms of CPU): a 25 MB e-mail body must not hold a
// worker for seconds. Bills put what matters near the top.
const maxPatternScan = 256 << 10

// collector merges the findings of every part: the same boleto in the
// body and in the PDF is one finding with two sources, in the order first
// seen.
type collector struct {
	ref  time.Time
	r    Result
	seen map[string]int // kind-prefixed key → index in its slice
}

func newCollector(ref time.Time) *collector {
	return &collector{ref: ref, seen: map[string]int{}}
}

// result returns the merged findings. A date found both with and without
// a label is kept only with it (the unlabelled sighting adds nothing).
func (c *collector) result() Result {
	r := c.r
	labelled := map[string]bool{}
	for _, d := range r.Dates {
		if d.Label != "" {
			labelled[d.Date] = true
		}
	}
	r.Dates = slices.DeleteFunc(slices.Clone(r.Dates), func(d Date) bool { return d.Label == "" && labelled[d.Date] })
	return r
}

// merge returns the index of key in a slice of length n, registering it
// as n when new.
func (c *collector) merge(key string, n int) (int, bool) {
	if i, ok := c.seen[key]; ok {
		return i, false
	}
	c.seen[key] = n
	return n, true
}

func addSource(sources []string, s string) []string {
	if slices.Contains(sources, s) {
		return sources
	}
	return append(sources, s)
}

// scan searches one part. Boletos and Pix codes come first; their digits
// are then blanked so a CPF, amount or date is never read out of them.
func (c *collector) scan(source, text string) {
	masked := []byte(text)
	blank := func(sp span) {
		for i := sp.start; i < sp.end && i < len(masked); i++ {
			masked[i] = ' '
		}
	}
	c.scanBoletos(source, text, blank)
	c.scanPix(source, text, blank)
	rest := c.patternWindow(source, string(masked))
	c.scanDocuments(source, rest)
	c.scanAmounts(source, rest)
	c.scanDates(source, rest)
}

// scanBoletos records the boletos (valid or not) found in text, blanking
// each one's digits.
func (c *collector) scanBoletos(source, text string, blank func(span)) {
	for _, h := range findBoletos(text, c.ref) {
		blank(h.span)
		if h.invalid != nil {
			inv := *h.invalid
			if i, isNew := c.merge("ib:"+inv.Digits, len(c.r.InvalidBoletos)); isNew {
				inv.Sources = []string{source}
				c.r.InvalidBoletos = append(c.r.InvalidBoletos, inv)
			} else {
				c.r.InvalidBoletos[i].Sources = addSource(c.r.InvalidBoletos[i].Sources, source)
			}
			continue
		}
		b := h.boleto
		if i, isNew := c.merge("b:"+b.Barcode, len(c.r.Boletos)); isNew {
			c.r.Boletos = append(c.r.Boletos, Boleto{Boleto: b, Sources: []string{source}})
		} else {
			c.r.Boletos[i].Sources = addSource(c.r.Boletos[i].Sources, source)
		}
	}
}

// scanPix records the Pix codes (valid or not) found in text, blanking
// each one.
func (c *collector) scanPix(source, text string, blank func(span)) {
	for _, h := range findPix(text) {
		blank(h.span)
		if h.invalid != nil {
			inv := *h.invalid
			if i, isNew := c.merge("ip:"+inv.Payload, len(c.r.InvalidPix)); isNew {
				inv.Sources = []string{source}
				c.r.InvalidPix = append(c.r.InvalidPix, inv)
			} else {
				c.r.InvalidPix[i].Sources = addSource(c.r.InvalidPix[i].Sources, source)
			}
			continue
		}
		p := h.pix
		if i, isNew := c.merge("p:"+p.Payload, len(c.r.Pix)); isNew {
			c.r.Pix = append(c.r.Pix, Pix{Pix: p, Sources: []string{source}})
		} else {
			c.r.Pix[i].Sources = addSource(c.r.Pix[i].Sources, source)
		}
	}
}

// patternWindow is the part of rest the regular expressions read: all of
// it up to maxPatternScan bytes, else its first maxPatternScan bytes (cut
// at a rune start) with a warning. Boletos and Pix codes are found in the
// whole text (a linear digit scan); documents, amounts and dates use
// regular expressions, which are linear too but slow per byte.
func (c *collector) patternWindow(source, rest string) string {
	if len(rest) <= maxPatternScan {
		return rest
	}
	cut := maxPatternScan
	for cut > 0 && !utf8.RuneStart(rest[cut]) {
		cut--
	}
	c.r.Warnings = append(c.r.Warnings, fmt.Sprintf("%s: only the first %d KiB were searched for documents, amounts and dates", source, maxPatternScan>>10))
	return rest[:cut]
}

// scanDocuments records the CPFs and CNPJs in rest, in text order.
func (c *collector) scanDocuments(source, rest string) {
	docs := findDocuments(rest)
	slices.SortStableFunc(docs, func(a, b documentHit) int { return a.start - b.start })
	for _, h := range docs {
		d := h.doc
		if i, isNew := c.merge("d:"+d.Kind+d.Number, len(c.r.Documents)); isNew {
			d.Sources = []string{source}
			c.r.Documents = append(c.r.Documents, d)
		} else {
			c.r.Documents[i].Sources = addSource(c.r.Documents[i].Sources, source)
		}
	}
}

// scanAmounts records the amounts in rest, in text order.
func (c *collector) scanAmounts(source, rest string) {
	amounts := findAmounts(rest)
	slices.SortStableFunc(amounts, func(a, b amountHit) int { return a.start - b.start })
	for _, h := range amounts {
		if i, isNew := c.merge("a:"+brazil.FormatCents(h.cents), len(c.r.Amounts)); isNew {
			c.r.Amounts = append(c.r.Amounts, Amount{Value: brazil.FormatCents(h.cents), Cents: h.cents, Sources: []string{source}})
		} else {
			c.r.Amounts[i].Sources = addSource(c.r.Amounts[i].Sources, source)
		}
	}
}

// scanDates records the dates in rest with their labels, in text order.
func (c *collector) scanDates(source, rest string) {
	dates := findDates(rest)
	slices.SortStableFunc(dates, func(a, b dateHit) int { return a.start - b.start })
	for _, h := range dates {
		if i, isNew := c.merge("t:"+h.date+"|"+h.label, len(c.r.Dates)); isNew {
			c.r.Dates = append(c.r.Dates, Date{Date: h.date, Label: h.label, Sources: []string{source}})
		} else {
			c.r.Dates[i].Sources = addSource(c.r.Dates[i].Sources, source)
		}
	}
}
