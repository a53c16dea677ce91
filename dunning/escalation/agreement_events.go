package escalation

import (
	"context"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// What every change of an agreement ends with: the agreement as the API
// and its events show it, and the end of one (settled, broken,
// canceled). Below the proposal and acceptance (agreements.go) and the
// monitor (agreement_monitor.go), which both end agreements.

// The agreement events.
const (
	EventAgreementProposed = "dunning.agreement.proposed"
	EventAgreementAccepted = "dunning.agreement.accepted"
	EventAgreementBroken   = "dunning.agreement.broken"
	EventAgreementSettled  = "dunning.agreement.settled"
	EventAgreementCanceled = "dunning.agreement.canceled"
)

// agreementJSON is an agreement as the API shows it.
type agreementJSON struct {
	ID             string                      `json:"id"`
	DebtorID       string                      `json:"debtor_id"`
	Status         lifecycle.AgreementStatus   `json:"status"`
	OriginalAmount money.Cents                 `json:"original_amount"`
	Discount       money.Cents                 `json:"discount_amount"`
	Total          money.Cents                 `json:"total_amount"`
	DownPayment    money.Cents                 `json:"down_payment"`
	Installments   int                         `json:"installments_count"`
	DueDay         int                         `json:"due_day"`
	Note           string                      `json:"note"`
	TermDocumentID *string                     `json:"term_document_id"`
	Charges        []ledger.AgreementChargeRow `json:"charges"`
	Schedule       []ledger.InstallmentRow     `json:"installments"`
	CreatedBy      string                      `json:"created_by"`
	AcceptedAt     *time.Time                  `json:"accepted_at"`
	EndedAt        *time.Time                  `json:"ended_at"`
	EndReason      *string                     `json:"end_reason"`
	CreatedAt      time.Time                   `json:"created_at"`
	UpdatedAt      time.Time                   `json:"updated_at"`
}

// showAgreement is a as the API shows it, with its charges and schedule
// read in q.
func (s *Service) showAgreement(ctx context.Context, q store.Querier, a ledger.AgreementRecord) (agreementJSON, error) {
	charges, inst, err := ledger.AgreementParts(ctx, q, a)
	if err != nil {
		return agreementJSON{}, err
	}
	return agreementJSON{ID: a.ID, DebtorID: a.DebtorID, Status: a.Status, OriginalAmount: a.Original, Discount: a.Discount, Total: a.Total,
		DownPayment: a.DownPayment, Installments: a.Installments, DueDay: a.DueDay, Note: a.Note, TermDocumentID: a.TermDocumentID,
		Charges: charges, Schedule: inst, CreatedBy: a.CreatedBy, AcceptedAt: a.AcceptedAt, EndedAt: a.EndedAt, EndReason: a.EndReason,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}, nil
}

// endAgreement records a's end in status to with reason and its event.
func (s *Service) endAgreement(ctx context.Context, tx *store.Tx, a *ledger.AgreementRecord, to lifecycle.AgreementStatus, reason string) error {
	now := s.Clock()
	if err := setAgreementEnd(ctx, tx, a.ID, a.Status, to, reason, now); err != nil {
		return err
	}
	a.Status, a.EndedAt, a.EndReason, a.UpdatedAt = to, &now, &reason, now
	slug := map[lifecycle.AgreementStatus]string{lifecycle.AgreementCanceled: EventAgreementCanceled, lifecycle.AgreementBroken: EventAgreementBroken,
		lifecycle.AgreementSettled: EventAgreementSettled}[to]
	return s.emitAgreementEvent(ctx, tx, slug, *a)
}

// emitAgreementEvent stores an event of a with the agreement as the API
// shows it.
func (s *Service) emitAgreementEvent(ctx context.Context, tx *store.Tx, slug string, a ledger.AgreementRecord) error {
	acc := s.Accounts.InTx(tx)
	ws, org, err := restkit.EventHome(ctx, acc, a.OrganizationID)
	if err != nil {
		return fmt.Errorf("dunning: emit %s: %w", slug, err)
	}
	j, err := s.showAgreement(ctx, tx, a)
	if err != nil {
		return err
	}
	data := map[string]any{"agreement": j}
	data["organization"] = org
	_, err = s.Hooks.Emit(ctx, tx, webhooks.Event{OrganizationID: a.OrganizationID, WorkspaceID: ws.ID, Slug: slug, SubjectID: a.ID, Data: data})
	return err
}
