package extract

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Date is a calendar date written in the text, as an ISO date. Label
// says what the nearest preceding keyword on the same line makes of it:
// "due_date" (vencimento), "issue_date" (emissão), "payment_date"
// (pagamento), or "" when none.
type Date struct {
	Date    string   `json:"date"`
	Label   string   `json:"label"`
	Sources []string `json:"sources"`
}

// Date labels.
const (
	LabelDueDate     = "due_date"
	LabelIssueDate   = "issue_date"
	LabelPaymentDate = "payment_date"
)

var (
	dateDMYRe  = regexp.MustCompile(`\b([0-9]{1,2})/([0-9]{1,2})/([0-9]{4}|[0-9]{2})\b`)
	dateISORe  = regexp.MustCompile(`\b([0-9]{4})-([0-9]{2})-([0-9]{2})\b`)
	dateLongRe = regexp.MustCompile(`(?i)\b([0-9]{1,2})(?:º|o)?\s+de\s+(janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)(?:\s+de)?\s+([0-9]{4})\b`)
)

var monthNames = map[string]time.Month{
	"janeiro": 1, "fevereiro": 2, "março": 3, "marco": 3, "abril": 4, "maio": 5, "junho": 6,
	"julho": 7, "agosto": 8, "setembro": 9, "outubro": 10, "novembro": 11, "dezembro": 12,
}

// dateKeywords map the words that announce a date to its label. The one
// closest to the date wins ("pagamento até o vencimento: 10/03/2026" is
// a due date).
var dateKeywords = []struct{ word, label string }{
	{"vencimento", LabelDueDate},
	{"vence", LabelDueDate},
	{"venc.", LabelDueDate},
	{"pagável até", LabelDueDate},
	{"pagar até", LabelDueDate},
	{"emissão", LabelIssueDate},
	{"emissao", LabelIssueDate},
	{"emitido", LabelIssueDate},
	{"emitida", LabelIssueDate},
	{"data do documento", LabelIssueDate},
	{"pagamento", LabelPaymentDate},
	{"pago em", LabelPaymentDate},
	{"paga em", LabelPaymentDate},
}

// labelLookBehind is how much of the line before a date is searched for
// a keyword.
const labelLookBehind = 40

type dateHit struct {
	span
	date  string
	label string
}

// findDates returns the valid calendar dates in text with their labels.
// Two-digit years are 20yy.
func findDates(text string) []dateHit {
	var hits []dateHit
	add := func(start, end int, y, m, d int) {
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if y < 1900 || y > 2199 || t.Month() != time.Month(m) || t.Day() != d {
			return
		}
		hits = append(hits, dateHit{span{start, end}, t.Format(time.DateOnly), dateLabel(text, start)})
	}
	for _, m := range dateDMYRe.FindAllStringSubmatchIndex(text, -1) {
		d, _ := strconv.Atoi(text[m[2]:m[3]])
		mo, _ := strconv.Atoi(text[m[4]:m[5]])
		y, _ := strconv.Atoi(text[m[6]:m[7]])
		if m[7]-m[6] == 2 {
			y += 2000
		}
		add(m[0], m[1], y, mo, d)
	}
	for _, m := range dateISORe.FindAllStringSubmatchIndex(text, -1) {
		y, _ := strconv.Atoi(text[m[2]:m[3]])
		mo, _ := strconv.Atoi(text[m[4]:m[5]])
		d, _ := strconv.Atoi(text[m[6]:m[7]])
		add(m[0], m[1], y, mo, d)
	}
	for _, m := range dateLongRe.FindAllStringSubmatchIndex(text, -1) {
		d, _ := strconv.Atoi(text[m[2]:m[3]])
		mo := monthNames[strings.ToLower(text[m[4]:m[5]])]
		y, _ := strconv.Atoi(text[m[6]:m[7]])
		add(m[0], m[1], y, int(mo), d)
	}
	return hits
}

// dateLabel looks for the keyword closest before start on its line.
func dateLabel(text string, start int) string {
	from := max(0, start-labelLookBehind)
	before := strings.ToLower(text[from:start])
	if k := strings.LastIndexByte(before, '\n'); k >= 0 {
		before = before[k+1:]
	}
	label, best := "", -1
	for _, kw := range dateKeywords {
		if k := strings.LastIndex(before, kw.word); k >= 0 && k+len(kw.word) > best {
			label, best = kw.label, k+len(kw.word)
		}
	}
	return label
}
