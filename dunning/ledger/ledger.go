package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// The charge's ledger: the one write path of a charge's money and
// status (docs/decisions.md, "Payments" and "One write path per
// aggregate"). Every route and job that changes what a charge owes or
// where it is in its life — payments, waivers, cancel, write-off,
// archive, a charge update, an agreement's acceptance, the agreement
// monitor, the overdue sweep — builds the charge as it must be and hands
// it to ApplyCharge, which stores it, moves it in the listing's counters,
// emits its status event and, when it leaves collection, runs the
// charge-closed hooks (service.whenChargeClosed), all in the caller's
// transaction. ledger_checker_test.go fails the build's tests if any
// other SQL of the package UPDATEs those columns.

// ChargeChange is what a write does to a charge: Next is the charge as
// it must be stored, a copy of the locked row the caller changed.
type ChargeChange struct {
	Next Charge
	// Event, when set, is the event the write itself is (a payment
	// recorded, a waiver), emitted with the stored charge before the
	// status event the change causes, so receivers see cause, then
	// effect.
	Event string
	// EventData is added to the data of Event and of the status event
	// this change emits, if any (the payment that cleared the charge).
	EventData map[string]any
}

// ApplyCharge stores change.Next over old (the row the caller locked
// in tx, lockCharge) and answers the charge as stored. A change of
// status must be one lifecycle.Charges allows (an UNPROCESSABLE answer
// otherwise); entering a status stamps its instant (overdue_at,
// paid_at unless the caller set it, canceled_at for canceled and
// written_off), and a paid charge owes nothing any more. Then, in tx:
// the listing's counters follow the charge (syncChargeCount); the status
// event is emitted — dunning.charge.overdue when it becomes overdue,
// .paid, .canceled; and a charge that leaves collection (a collectible
// status to any other, or archived) runs the charge-closed hooks.
func (s *Service) ApplyCharge(ctx context.Context, tx *store.Tx, old Charge, change ChargeChange) (Charge, error) {
	c := change.Next
	if c.CustomDataJSON == "" {
		c.CustomDataJSON = MustJSON(c.CustomData)
	}
	if c.Tags == nil {
		c.Tags = []string{}
	}
	if c.ID != old.ID || c.OrganizationID != old.OrganizationID {
		return Charge{}, fmt.Errorf("dunning: applyCharge: charge %s changed into %s", old.ID, c.ID)
	}
	now := s.Clock()
	moved := c.Status != old.Status
	if moved {
		if err := old.Status.CanBecome(c.Status); err != nil {
			return Charge{}, TransitionError(err)
		}
		switch c.Status {
		case lifecycle.ChargeOverdue:
			c.OverdueAt = &now
		case lifecycle.ChargePaid:
			if c.PaidAt == nil {
				c.PaidAt = &now
			}
		case lifecycle.ChargeCanceled, lifecycle.ChargeWrittenOff:
			c.CanceledAt = &now
		}
	}
	if c.Status == lifecycle.ChargePaid {
		c.OpenAmount, c.FineDue, c.InterestDue = 0, 0, 0
	}
	if c.OpenAmount < 0 || c.FineDue < 0 || c.InterestDue < 0 || c.OpenAmount > c.Amount {
		return Charge{}, fmt.Errorf("dunning: applyCharge: charge %s would owe open %d, fine %d, interest %d of %d", c.ID,
			c.OpenAmount, c.FineDue, c.InterestDue, c.Amount)
	}
	if err := storeCharge(ctx, tx, c, now); err != nil {
		return Charge{}, err
	}
	stored, err := chargeByID(ctx, tx, c.OrganizationID, c.ID)
	if err != nil {
		return Charge{}, err
	}
	if change.Event != "" {
		if err := s.emitChargeEventWith(ctx, tx, change.Event, stored, change.EventData); err != nil {
			return Charge{}, err
		}
	}
	if slug := statusEvent(old.Status, stored.Status); slug != "" {
		if err := s.emitChargeEventWith(ctx, tx, slug, stored, change.EventData); err != nil {
			return Charge{}, err
		}
	}
	if reason, closing := closeReason(old, stored); closing {
		if err := s.OnChargeClosed(ctx, tx, stored, reason); err != nil {
			return Charge{}, err
		}
	}
	return stored, nil
}

// statusEvent is the event a charge moving from one status to another
// emits, "" for none: the catalog has none for a write-off or for
// entering an agreement (the agreement's own events report it).
func statusEvent(from, to lifecycle.ChargeStatus) string {
	if from == to {
		return ""
	}
	switch to {
	case lifecycle.ChargeOverdue:
		return EventChargeOverdue
	case lifecycle.ChargePaid:
		return EventChargePaid
	case lifecycle.ChargeCanceled:
		return EventChargeCanceled
	}
	return ""
}

// closeReason says whether the change from old to c takes the charge out
// of collection, and why: a collectible charge entering any other
// status (lifecycle.StopReasonFor), or a charge being archived.
func closeReason(old, c Charge) (lifecycle.StopReason, bool) {
	if old.Status.Collectible() {
		if reason, ok := lifecycle.StopReasonFor(c.Status); ok {
			return reason, true
		}
	}
	if old.ArchivedAt == nil && c.ArchivedAt != nil {
		return StopArchived, true
	}
	return "", false
}

// storeCharge writes every column a charge's writes may change, c as it
// must be, stamped updated at now, and moves it in the listing's counters
// (SyncChargeCount). It is the one UPDATE of a charge's money and status,
// and it stays in ledger.go, not in charges_store.go:
// TestOneChargeWritePath (dunning/ledger_checker_test.go) refuses such
// SQL in any other file (docs/decisions.md "Dunning: debtors, charges and
// payments", "One write path for a charge").
func storeCharge(ctx context.Context, tx *store.Tx, c Charge, now time.Time) error {
	assessed := 0
	if c.FineAssessed {
		assessed = 1
	}
	var accrual *string
	if !c.AccrualFrom.IsZero() {
		a := c.AccrualFrom.String()
		accrual = &a
	}
	if _, err := tx.Exec(ctx, `UPDATE dunning_charges SET amount_cents = ?, open_amount_cents = ?, fine_due_cents = ?, interest_due_cents = ?,
		fine_assessed = ?, accrual_from = ?, due_date = ?, description = ?, fine = ?, interest = ?, origin_ref = ?, barcode = ?, payment_link = ?,
		tags = ?, custom_data = ?, status = ?, archived_at = ?, overdue_at = ?, paid_at = ?, canceled_at = ?, updated_at = ?
		WHERE id = ? AND organization_id = ?`,
		int64(c.Amount), int64(c.OpenAmount), int64(c.FineDue), int64(c.InterestDue), assessed, accrual, c.DueDate.String(),
		c.Description, int64(c.Fine), int64(c.Interest), c.OriginRef, c.Barcode, c.PaymentLink, MustJSON(c.Tags), c.CustomDataJSON,
		string(c.Status), c.ArchivedAt, c.OverdueAt, c.PaidAt, c.CanceledAt, now, c.ID, c.OrganizationID); err != nil {
		return err
	}
	return SyncChargeCount(ctx, tx, c.ID)
}

// TransitionError answers a refused change of a charge's status: an
// illegal one is UNPROCESSABLE naming both states ("a paid charge cannot
// become canceled").
func TransitionError(err error) error {
	var te *lifecycle.TransitionError
	if errors.As(err, &te) {
		return rest.Unprocessable(te.Error())
	}
	return err
}
