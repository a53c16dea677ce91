package ledger

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// EventChargeWaived reports fine or interest forgiven (dunning_charges_waive).
const EventChargeWaived = "dunning.charge.waived"

// maxWaiverReason bounds a waiver's reason.
const maxWaiverReason = 500

// Forgiving a charge's fine or interest is an act of its own, recorded
// (who, when, why, how much) in dunning_charge_waivers and reported by
// dunning.charge.waived: never the side effect of a payment or of any
// other write (docs/decisions.md, "Payments"). It forgives what accrued
// until today; interest on the principal left keeps accruing from today,
// as the charge's terms say.

type waiveChargeIn struct {
	ID       string `json:"id" in:"path" jsonschema:"The charge's id or external_id."`
	Fine     bool   `json:"fine,omitempty" jsonschema:"true forgives the fine due (the one-time fine is then never assessed again)."`
	Interest bool   `json:"interest,omitempty" jsonschema:"true forgives the interest accrued until today; interest on what stays open keeps accruing from today."`
	Reason   string `json:"reason" minLength:"1" maxLength:"500" jsonschema:"Why it is forgiven, kept with the waiver (required)."`
}

// waiverJSON is a recorded waiver.
type waiverJSON struct {
	ID        string      `json:"id"`
	ChargeID  string      `json:"charge_id"`
	Fine      money.Cents `json:"fine_waived"`
	Interest  money.Cents `json:"interest_waived"`
	Reason    string      `json:"reason"`
	CreatedBy string      `json:"created_by"`
	CreatedAt time.Time   `json:"created_at"`
}

// registerWaivers declares dunning_charges_waive.
func registerWaivers(api *rest.API, s *Service) {
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_waive", Method: "POST", Path: "/charges/{id}/waivers", Tags: []string{"charges"},
		Title: "Forgive a charge's fine or interest",
		Summary: "Forgives the fine and/or the interest a pending or overdue charge owes today, recording who, when, why and how much, and emits dunning.charge.waived. " +
			"Interest on what stays open keeps accruing from today; a charge left owing nothing is paid.",
		Description: "Destructive: money the debtor owes is given up for good.",
		Requires:    chargesManage, Annotations: restkit.Destructive(false), ConsumesConfirmation: true,
	}, s.describeChargesWaive, s.chargesWaive)
}

// describeChargesWaive is the confirmation dunning_charges_waive asks for.
func (s *Service) describeChargesWaive(ctx context.Context, in *waiveChargeIn) (string, error) {
	what := map[[2]bool]string{{true, true}: "the fine and the interest", {true, false}: "the fine", {false, true}: "the interest"}[[2]bool{in.Fine, in.Interest}]
	if what == "" {
		what = "nothing"
	}
	return s.describeCharge("Forgive "+what+" of", "The money forgiven is given up for good.")(ctx, &ChargeRefIn{ID: in.ID})
}

// chargesWaive answers dunning_charges_waive.
func (s *Service) chargesWaive(ctx context.Context, in *waiveChargeIn) (*rest.Response, error) {
	return s.waiveCharge(ctx, in)
}

// waiveCharge forgives what in names of the charge's fine and interest
// on the organization's today, through the ledger (applyCharge).
func (s *Service) waiveCharge(ctx context.Context, in *waiveChargeIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(in.Reason)
	if reason == "" {
		return nil, Invalid("reason", "must say why the money is forgiven")
	}
	if len([]rune(reason)) > maxWaiverReason {
		return nil, Invalid("reason", fmt.Sprintf("must be at most %d characters", maxWaiverReason))
	}
	if !in.Fine && !in.Interest {
		return nil, Invalid("fine", "say what to forgive: fine, interest or both")
	}
	var w waiverJSON
	var c Charge
	var st Settings
	err = s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		old, err := LockCharge(ctx, tx, t.OrgID, in.ID)
		if err != nil {
			return NotFoundAs(err, "charge")
		}
		if !old.Status.Collectible() {
			return rest.Unprocessable(fmt.Sprintf("%s %s charge owes no fine or interest to forgive: only pending and overdue charges can", ArticleFor(string(old.Status)), old.Status))
		}
		if st, err = LoadSettings(ctx, tx, t.OrgID); err != nil {
			return err
		}
		now := s.Clock()
		terms, err := latefee.Accrue(chargeTerms(old, st), st.Today(now))
		if err != nil {
			return err
		}
		w = waiverJSON{ID: store.NewID(), ChargeID: old.ID, Reason: reason, CreatedBy: recordedBy(t.Identity), CreatedAt: now}
		if in.Fine {
			w.Fine, terms.FineDue = terms.FineDue, 0
			// A fine forgiven before it was assessed is never assessed.
			terms.FineAssessed = true
		}
		if in.Interest {
			w.Interest, terms.InterestDue = terms.InterestDue, 0
			if today := st.Today(now); today.After(terms.AccrualFrom) && today.After(old.DueDate) {
				terms.AccrualFrom = today
			}
		}
		if w.Fine == 0 && w.Interest == 0 {
			return rest.Unprocessable(fmt.Sprintf("the charge owes nothing of what was asked to forgive on %s", st.Today(now).BR()))
		}
		if err := insertWaiver(ctx, tx, waiverRow{ID: w.ID, OrganizationID: t.OrgID, ChargeID: old.ID, Fine: w.Fine, Interest: w.Interest,
			Reason: w.Reason, CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt}); err != nil {
			return err
		}
		next := withTerms(old, terms)
		if terms.Cleared() {
			next.Status = lifecycle.ChargePaid
		}
		c, err = s.ApplyCharge(ctx, tx, old, ChargeChange{Next: next, Event: EventChargeWaived, EventData: map[string]any{"waiver": w}})
		return err
	})
	if err != nil {
		return nil, err
	}
	v, err := s.ChargeView(c, st, bankcalendar.Date{})
	if err != nil {
		return nil, err
	}
	return rest.Created(map[string]any{"data": map[string]any{"waiver": w, "charge": v}}), nil
}
