package ledger

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// The charge's events (webhookEventSlugs in spec.go lists every event).
const (
	EventChargeCreated  = "dunning.charge.created"
	EventChargeOverdue  = "dunning.charge.overdue"
	EventChargePaid     = "dunning.charge.paid"
	EventChargeCanceled = "dunning.charge.canceled"
)

// EmitChargeEvent stores a charge event (slug, one of the EventCharge
// constants) and its deliveries in tx, so the event exists exactly when
// the change it reports commits. Its data is the charge as the API shows
// it, with its amounts for the organization's today, and the organization
// ({id, name}) so a receiver serving several routes it without calling
// back. The events live under the organization's home workspace, where
// its webhooks are (restkit.OrganizationTenancy). The scheduler's sweep
// calls it with EventChargeOverdue.
func (s *Service) EmitChargeEvent(ctx context.Context, tx *store.Tx, slug string, c Charge) error {
	return s.emitChargeEventWith(ctx, tx, slug, c, nil)
}

// emitChargeEventWith is emitChargeEvent with extra data beside the
// charge and the organization (the payment that paid it, a waiver).
func (s *Service) emitChargeEventWith(ctx context.Context, tx *store.Tx, slug string, c Charge, extra map[string]any) error {
	acc := s.Accounts.InTx(tx)
	ws, org, err := restkit.EventHome(ctx, acc, c.OrganizationID)
	if err != nil {
		return fmt.Errorf("dunning: emit %s: %w", slug, err)
	}
	st, err := LoadSettings(ctx, tx, c.OrganizationID)
	if err != nil {
		return err
	}
	on := st.Today(s.Clock())
	b, err := ChargeBreakdown(c, st, on)
	if err != nil {
		return err
	}
	data := map[string]any{"charge": ShowCharge(c, b, on)}
	for k, v := range extra {
		data[k] = v
	}
	data["organization"] = org
	_, err = s.Hooks.Emit(ctx, tx, webhooks.Event{OrganizationID: c.OrganizationID, WorkspaceID: ws.ID, Slug: slug,
		SubjectID: c.ID, Data: data})
	return err
}
