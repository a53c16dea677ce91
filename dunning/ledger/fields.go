package ledger

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Reading the wire's values into the records' types, with the API's
// errors: a bad field is VALIDATION_ERROR with a detail naming it
// (docs/decisions.md "Error codes").

// Invalid is a VALIDATION_ERROR naming one field.
func Invalid(field, msg string) *rest.Error {
	return rest.Validation("the request is invalid", rest.FieldError{Field: field, Message: msg})
}

// amountIn reads an amount in reais (a float on the wire) into cents,
// rounded half-up from the digits as written ("10.555" is R$ 10,56): a
// negative, non-finite or too large amount is refused naming field.
func amountIn(field string, v float64) (money.Cents, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, Invalid(field, "must be a finite number")
	}
	c, err := money.FromFloat(v)
	if err != nil {
		return 0, Invalid(field, err.Error())
	}
	return c, nil
}

// positiveAmountIn is amountIn for an amount that must be more than zero
// once rounded to the cent.
func positiveAmountIn(field string, v float64) (money.Cents, error) {
	c, err := amountIn(field, v)
	if err == nil && c <= 0 {
		return 0, Invalid(field, "must be at least 0.01")
	}
	return c, err
}

// PercentIn reads a percentage (2 for 2 %) into latefee.Percent, rounded
// half-up to four decimals.
func PercentIn(field string, v float64) (latefee.Percent, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, Invalid(field, "must be a finite number")
	}
	p, err := latefee.PercentFromFloat(v)
	if err != nil {
		return 0, Invalid(field, err.Error())
	}
	return p, nil
}

// The window of every date the API accepts (due dates, filters, the
// day of an updated amount, closed days): a charge due in year 0 or
// 9999 is a typo, and its fine and interest over 740 000 days are a
// number nobody owes. 1990 leaves room for debts imported from long
// ago; 2100 for the longest agreements.
const (
	earliestYear = 1990
	latestYear   = 2100
)

// dateWindow is the first and last day dateIn accepts.
func dateWindow() (first, last bankcalendar.Date) {
	return bankcalendar.NewDate(earliestYear, time.January, 1), bankcalendar.NewDate(latestYear, time.December, 31)
}

// DateIn reads a YYYY-MM-DD date within dateWindow.
func DateIn(field, s string) (bankcalendar.Date, error) {
	d, err := bankcalendar.ParseDate(s)
	if err != nil {
		return bankcalendar.Date{}, Invalid(field, err.Error())
	}
	if first, last := dateWindow(); d.Before(first) || d.After(last) {
		return bankcalendar.Date{}, Invalid(field, fmt.Sprintf("must be between %s and %s", first, last))
	}
	return d, nil
}

// capError turns a fine or interest above its cap into a VALIDATION_ERROR
// naming the field and the rule (latefee.RuleError).
func capError(err error) error {
	var re *latefee.RuleError
	if errors.As(err, &re) {
		return Invalid(re.Field, re.Error())
	}
	return err
}

// NotFoundAs answers store.ErrNotFound as the API's NOT_FOUND for what
// ("charge", "debtor"): for a missing row and another organization's
// alike, so existence is never revealed across tenants.
func NotFoundAs(err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return rest.NotFound(what)
	}
	return err
}

// CleanStrings trims each string and drops empty ones and repeats,
// keeping the first order.
func CleanStrings(in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// ArticleFor is "a" or "an" before word, for messages naming a state.
func ArticleFor(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func optionalText(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// applyPercent reads v, when the request has it, into *dst as a
// percentage named field.
func applyPercent(dst *latefee.Percent, field string, v *float64) error {
	if v == nil {
		return nil
	}
	p, err := PercentIn(field, *v)
	if err != nil {
		return err
	}
	*dst = p
	return nil
}
