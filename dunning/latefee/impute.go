package latefee

import (
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// Imputation is the order a payment pays a late charge's parts in.
type Imputation string

// Imputation orders.
const (
	// InterestFirst is the law's default: Código Civil art. 354 — "havendo
	// capital e juros, o pagamento imputar-se-á primeiro nos juros
	// vencidos, e depois no capital, salvo estipulação em contrário".
	// A payment pays the interest due, then the fine, then the principal.
	InterestFirst Imputation = "interest_first"
	// PrincipalFirst is the "estipulação em contrário" of art. 354: a
	// creditor who agreed with its debtors to impute payments to the
	// principal first chooses it. A payment pays the principal, then the
	// fine and interest still due; fine and interest are recomputed on
	// the principal that stays open, as they always were before.
	PrincipalFirst Imputation = "principal_first"
)

// Imputations lists the orders, the default first.
var Imputations = []Imputation{InterestFirst, PrincipalFirst}

// ErrOverpaid is a payment above what the charge costs on its day.
var ErrOverpaid = errors.New("payment is more than the updated amount")

// Accrue crystallises what a charge under t owes on day on: when it is
// late, the interest on Open since AccrualFrom (or the due date) joins
// InterestDue and AccrualFrom becomes on, and the fine, when not yet
// assessed, joins FineDue once. On time, t is returned unchanged. After
// Accrue, Compute(t, on) gives the same Updated as before it, with
// nothing left to accrue on that day.
func Accrue(t Terms, on bankcalendar.Date) (Terms, error) {
	b, err := Compute(t, on)
	if err != nil || !t.Late(on) {
		return t, err
	}
	t.FineDue, t.InterestDue, t.FineAssessed = b.Fine, b.Interest, true
	if on.After(t.AccrualFrom) {
		t.AccrualFrom = on
	}
	return t, nil
}

// Applied is how a payment was imputed, in cents.
type Applied struct {
	Interest  money.Cents `json:"interest"`
	Fine      money.Cents `json:"fine"`
	Principal money.Cents `json:"principal"`
}

// Total is what the payment paid.
func (a Applied) Total() money.Cents { return a.Interest + a.Fine + a.Principal }

// Impute records a payment of amount on day on against a charge under
// t: it crystallises what accrued (Accrue) and pays the parts in order.
// Under PrincipalFirst nothing is crystallised first, so fine and
// interest stay computed on the principal left open (the rule before
// art. 354 was followed; an organization that agreed it keeps it). It
// returns the terms after the payment and how it was applied; a payment
// above the updated amount is ErrOverpaid, and terms are not changed.
func Impute(t Terms, order Imputation, amount money.Cents, on bankcalendar.Date) (Terms, Applied, error) {
	if amount <= 0 {
		return t, Applied{}, fmt.Errorf("latefee: payment must be positive (got %d cents)", amount)
	}
	b, err := Compute(t, on)
	if err != nil {
		return t, Applied{}, err
	}
	if amount > b.Updated {
		return t, Applied{}, ErrOverpaid
	}
	var a Applied
	take := func(part *money.Cents, into *money.Cents) {
		n := min(amount, *part)
		*part -= n
		*into += n
		amount -= n
	}
	switch order {
	case PrincipalFirst:
		take(&t.Open, &a.Principal)
		if t.Open == 0 {
			// The principal is paid: the fine and interest of the day are
			// crystallised on the principal that was open, so they stay
			// owed (a payment below the updated amount never clears a
			// charge) and what is left of the payment pays them.
			rest := t
			rest.Open = t.Open + a.Principal
			acc, err := Accrue(rest, on)
			if err != nil {
				return t, Applied{}, err
			}
			t.FineDue, t.InterestDue, t.FineAssessed, t.AccrualFrom = acc.FineDue, acc.InterestDue, acc.FineAssessed, acc.AccrualFrom
			take(&t.FineDue, &a.Fine)
			take(&t.InterestDue, &a.Interest)
		}
	case InterestFirst, "":
		if t, err = Accrue(t, on); err != nil {
			return t, Applied{}, err
		}
		take(&t.InterestDue, &a.Interest)
		take(&t.FineDue, &a.Fine)
		take(&t.Open, &a.Principal)
	default:
		return t, Applied{}, fmt.Errorf("latefee: imputation must be %q or %q (got %q)", InterestFirst, PrincipalFirst, order)
	}
	return t, a, nil
}

// Cleared reports whether nothing is owed under t any more: no
// principal, fine or interest due.
func (t Terms) Cleared() bool { return t.Open == 0 && t.FineDue == 0 && t.InterestDue == 0 }
