package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// paymentClockSkew is how far in the future a paid_at may be: a client's
// clock a little ahead of ours is not a payment from tomorrow.
const paymentClockSkew = 5 * time.Minute

// paidBeforeCharge is how long before its charge a payment may say it
// was paid: before the earlier of the charge's creation and its due date
// (an imported legacy charge is created today with an old due date, and
// its payments are as old as it), by at most a year (an early payment
// recorded against the charge later). Before that, paid_at is a typo —
// "1900-01-01" on a charge created today.
const paidBeforeCharge = 365 * 24 * time.Hour

// paidAtFloor is the earliest paid_at a payment of c may carry:
// paidBeforeCharge before the earlier of c's creation and due date, and
// never before the API's date window (dateWindow).
func paidAtFloor(c Charge) time.Time {
	start := c.CreatedAt
	if due := c.DueDate.At(0, 0, time.UTC); due.Before(start) {
		start = due
	}
	floor := start.Add(-paidBeforeCharge)
	if first, _ := dateWindow(); floor.Before(first.At(0, 0, time.UTC)) {
		floor = first.At(0, 0, time.UTC)
	}
	return floor
}

type createPaymentIn struct {
	ID        string  `json:"id" in:"path" jsonschema:"The charge's id or external_id."`
	Amount    float64 `json:"amount" minimum:"0" jsonschema:"What was paid, in BRL; more than two decimals are rounded half-up to the cent. At most the charge's updated amount on the day it was paid (open amount plus fine and interest)."`
	PaidAt    string  `json:"paid_at,omitempty" format:"date-time" jsonschema:"When it was paid, RFC 3339 (default now); not in the future."`
	Method    string  `json:"method,omitempty" enum:"pix,bank_billet,card,cash,transfer,other" jsonschema:"How it was paid (default other)."`
	Reference string  `json:"reference,omitempty" maxLength:"255" jsonschema:"The payment's reference: a Pix end-to-end id, a receipt number."`
}

// paymentResultJSON is a recorded payment with the charge as it stands
// after it.
type paymentResultJSON struct {
	paymentRecordedJSON
	Charge ChargeJSON `json:"charge"`
}

// paymentRecordedJSON is a payment as it was just recorded: how it was
// applied (paymentJSON.Applied) and what the charge still owes on the
// payment's day, by part.
type paymentRecordedJSON struct {
	paymentJSON
	Remaining remainingJSON `json:"remaining"`
}

// remainingJSON is what a charge still owes after a payment, on its day.
type remainingJSON struct {
	Principal money.Cents `json:"principal"`
	Fine      money.Cents `json:"fine"`
	Interest  money.Cents `json:"interest"`
	Total     money.Cents `json:"total"`
}

// showPaymentResult is pay with what stays open after it (left, the
// charge's breakdown on the payment's day).
func showPaymentResult(pay Payment, left latefee.Breakdown) paymentRecordedJSON {
	return paymentRecordedJSON{paymentJSON: showPayment(pay),
		Remaining: remainingJSON{Principal: left.Open, Fine: left.Fine, Interest: left.Interest, Total: left.Updated}}
}

// EventPaymentRecorded reports every payment, with how it was applied
// (interest, fine, principal) and what remains; the one that clears the
// charge is followed by dunning.charge.paid, which carries it too.
const EventPaymentRecorded = "dunning.payment.recorded"

// registerPayments declares dunning_charges_payments_create.
func registerPayments(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_charges_payments_create", Method: "POST", Path: "/charges/{id}/payments", Tags: []string{"charges"},
		Title: "Record a payment",
		Summary: "Records a payment against a pending or overdue charge. On a late charge it pays first the interest due, then the fine, then the principal (Código Civil art. 354; the organization's payment_imputation setting may be principal_first where agreed). " +
			"The answer and dunning.payment.recorded say how it was applied and what remains; only paying the whole updated amount marks the charge paid, stops its collection and emits dunning.charge.paid (with the payment).",
		Requires: chargesWrite, Annotations: restkit.Write(false),
	}, s.chargesPaymentsCreate)
}

// chargesPaymentsCreate answers dunning_charges_payments_create.
func (s *Service) chargesPaymentsCreate(ctx context.Context, in *createPaymentIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	amount, err := positiveAmountIn("amount", in.Amount)
	if err != nil {
		return nil, err
	}
	now := s.Clock()
	paidAt, err := paidAtIn(in.PaidAt, now)
	if err != nil {
		return nil, err
	}
	var r recordedPayment
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		r, err = s.recordPayment(ctx, tx, t, in, amount, paidAt, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	v, err := s.ChargeView(r.charge, r.settings, bankcalendar.Date{})
	if err != nil {
		return nil, err
	}
	return rest.Created(map[string]any{"data": paymentResultJSON{paymentRecordedJSON: showPaymentResult(r.payment, r.left), Charge: v}}), nil
}

// paidAtIn reads a payment's paid_at: an RFC 3339 instant, at most
// paymentClockSkew after now, kept in UTC to the microsecond; now when
// the request has none.
func paidAtIn(text string, now time.Time) (time.Time, error) {
	if text == "" {
		return now, nil
	}
	p, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return time.Time{}, Invalid("paid_at", "must be an RFC 3339 instant such as 2026-03-10T14:30:00-03:00")
	}
	if p.After(now.Add(paymentClockSkew)) {
		return time.Time{}, Invalid("paid_at", "must not be in the future")
	}
	return p.UTC().Truncate(time.Microsecond), nil
}

// recordedPayment is what recording a payment leaves: the payment, the
// charge after it, the settings both were computed with, and what the
// charge still owes on the payment's day.
type recordedPayment struct {
	payment  Payment
	charge   Charge
	settings Settings
	left     latefee.Breakdown
}

// recordPayment records, inside tx, a payment of amount paid at paidAt
// against the charge in names: only a pending or overdue charge takes
// one, paid_at no earlier than paidAtFloor, the amount at most what the
// charge costs that day. The payment is imputed (latefee.Impute, in the
// organization's order) and the charge moves through the ledger: paid
// when nothing is left, overdue when what stays open is late now.
func (s *Service) recordPayment(ctx context.Context, tx *store.Tx, t restkit.Tenant, in *createPaymentIn, amount money.Cents, paidAt, now time.Time) (recordedPayment, error) {
	var r recordedPayment
	old, err := LockCharge(ctx, tx, t.OrgID, in.ID)
	if err != nil {
		return r, NotFoundAs(err, "charge")
	}
	if !old.Status.Collectible() {
		return r, rest.Unprocessable(fmt.Sprintf("%s %s charge cannot receive payments: only pending and overdue charges can", ArticleFor(string(old.Status)), old.Status))
	}
	if floor := paidAtFloor(old); paidAt.Before(floor) {
		return r, Invalid("paid_at", fmt.Sprintf("must not be before %s: at most a year before the charge was created or fell due, and not before %d",
			floor.Format(time.RFC3339), earliestYear))
	}
	if r.settings, err = LoadSettings(ctx, tx, t.OrgID); err != nil {
		return r, err
	}
	st := r.settings
	day := st.Today(paidAt)
	b, err := ChargeBreakdown(old, st, day)
	if err != nil {
		return r, err
	}
	if amount > b.Updated {
		return r, rest.Unprocessable(fmt.Sprintf("the payment of %s is more than the %s the charge costs on %s (open amount %s, fine %s, interest %s)",
			amount, b.Updated, day.BR(), b.Open, b.Fine, b.Interest))
	}
	after, applied, err := latefee.Impute(chargeTerms(old, st), st.PaymentImputation, amount, day)
	if err != nil {
		return r, err
	}
	method := in.Method
	if method == "" {
		method = "other"
	}
	r.payment = Payment{ID: store.NewID(), OrganizationID: t.OrgID, ChargeID: old.ID, Amount: amount, PaidAt: paidAt, Method: method,
		Reference: optionalText(in.Reference), CreatedBy: recordedBy(t.Identity), CreatedAt: now,
		AppliedInterest: applied.Interest, AppliedFine: applied.Fine, AppliedPrincipal: applied.Principal}
	if err := insertPayment(ctx, tx, r.payment); err != nil {
		return r, err
	}
	next := withTerms(old, after)
	switch {
	case after.Cleared():
		next.Status, next.PaidAt = lifecycle.ChargePaid, &paidAt
	case next.Status == lifecycle.ChargePending && st.LateOn(next.DueDate, st.Today(now)):
		// What stays open is late: it turns overdue now, as the
		// sweep would (charges.go does the same on a write).
		next.Status = lifecycle.ChargeOverdue
	}
	if r.left, err = ChargeBreakdown(next, st, day); err != nil {
		return r, err
	}
	recorded := map[string]any{"payment": showPaymentResult(r.payment, r.left)}
	r.charge, err = s.ApplyCharge(ctx, tx, old, ChargeChange{Next: next, Event: EventPaymentRecorded, EventData: recorded})
	return r, err
}
