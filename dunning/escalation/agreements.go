package escalation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Agreements (acordos): a debtor's open charges renegotiated into a down
// payment and monthly installments. Proposing computes and stores the
// proposal and asks for its term document; accepting puts the charges
// in_agreement — their collection stops and their reports and protests
// are asked out, in the same transaction — and makes each installment a
// charge (origin agreement), paid through the charges' own payments; the
// agreement monitor settles or breaks it (agreement_monitor.go).

var (
	agreementsRead   = mcp.Requirement{Scopes: []string{"dunning.agreements"}, Permission: identity.PermRead}
	agreementsWrite  = mcp.Requirement{Scopes: []string{"dunning.agreements"}, Permission: identity.PermWrite}
	agreementsManage = mcp.Requirement{Scopes: []string{"dunning.agreements"}, Permission: identity.PermManage}
)

// Bounds of a proposal.
const (
	MaxAgreementCharges      = 50
	MaxAgreementInstallments = 60
)

type CreateAgreementIn struct {
	DebtorID        string   `json:"debtor_id" minLength:"1" maxLength:"255" jsonschema:"The debtor (id or external_id)."`
	ChargeIDs       []string `json:"charge_ids" minItems:"1" maxItems:"50" jsonschema:"The debtor's pending or overdue charges to renegotiate (ids or external_ids)."`
	DiscountPercent *float64 `json:"discount_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"A discount in percent of the charges' updated amount today; at most the settings' agreement_max_discount_percent. Give this or discount_amount."`
	DiscountAmount  *float64 `json:"discount_amount,omitempty" minimum:"0" jsonschema:"A discount in BRL; the same cap."`
	DownPayment     *float64 `json:"down_payment,omitempty" minimum:"0" jsonschema:"An entry paid first, in BRL, due today (or the next business day); less than the total."`
	Installments    int      `json:"installments" minimum:"1" maximum:"60" jsonschema:"How many monthly installments pay the rest (1 to 60); whole cents, the rounding remainder on the first."`
	DueDay          int      `json:"due_day,omitempty" minimum:"1" maximum:"31" jsonschema:"Day of the month the installments fall due (default today's day; the month's last day when shorter), moved to the next business day."`
	Note            string   `json:"note,omitempty" maxLength:"1000" jsonschema:"Free text kept with the agreement and printed on its term."`
}

type agreementsListIn struct {
	Status   string `json:"status,omitempty" in:"query" enum:"proposed,accepted,active,settled,broken,canceled" jsonschema:"Only agreements in this status."`
	DebtorID string `json:"debtor_id,omitempty" in:"query" maxLength:"255" jsonschema:"Only this debtor's (id or external_id)."`
	restkit.NumberedParams
}

type agreementIDIn struct {
	ID string `json:"id" in:"path" maxLength:"255" jsonschema:"The agreement's id."`
}

// proposal is a computed agreement, not yet stored.
type proposal struct {
	debtor   ledger.Debtor
	charges  []ledger.Charge
	updated  []money.Cents
	original money.Cents
	discount money.Cents
	down     money.Cents
	parts    []money.Cents
	dates    []bankcalendar.Date
	downDate bankcalendar.Date
	dueDay   int
}

// propose computes an agreement over in's charges on today, under the
// settings' discount cap, in q.
func (s *Service) propose(ctx context.Context, q store.Querier, orgID string, in *CreateAgreementIn) (proposal, error) {
	var p proposal
	if in.DiscountPercent != nil && in.DiscountAmount != nil {
		return p, ledger.Invalid("discount_amount", "give discount_percent or discount_amount, not both")
	}
	d, err := ledger.GetDebtor(ctx, q, orgID, in.DebtorID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return p, ledger.Invalid("debtor_id", "no debtor of the organization has this id or external_id")
		}
		return p, err
	}
	p.debtor = d
	st, err := ledger.LoadSettings(ctx, q, orgID)
	if err != nil {
		return p, err
	}
	today := st.Today(s.Clock())
	if err := s.proposeCharges(ctx, q, orgID, st, today, in, &p); err != nil {
		return p, err
	}
	return p, proposeTerms(st, today, in, &p)
}

// proposeCharges checks in's charges (the debtor's, each once, still
// collected, in no other open agreement) and adds each to p with its
// updated amount on today.
func (s *Service) proposeCharges(ctx context.Context, q store.Querier, orgID string, st ledger.Settings, today bankcalendar.Date, in *CreateAgreementIn, p *proposal) error {
	seen := map[string]bool{}
	for i, ref := range in.ChargeIDs {
		field := fmt.Sprintf("charge_ids.%d", i)
		c, err := ledger.GetCharge(ctx, q, orgID, strings.TrimSpace(ref))
		if errors.Is(err, store.ErrNotFound) {
			return ledger.Invalid(field, "no charge of the organization has this id or external_id")
		} else if err != nil {
			return err
		}
		if c.DebtorID != p.debtor.ID {
			return ledger.Invalid(field, "is a charge of another debtor")
		}
		if seen[c.ID] {
			return ledger.Invalid(field, "names a charge already in the list")
		}
		seen[c.ID] = true
		if !c.Status.Collectible() || c.ArchivedAt != nil {
			return rest.Unprocessable(fmt.Sprintf("charge %s is %s: only pending and overdue charges can enter an agreement", notify.ChargeName(c), c.Status))
		}
		open, err := openAgreementsOf(ctx, q, c.ID)
		if err != nil {
			return err
		}
		if open > 0 {
			return rest.Unprocessable(fmt.Sprintf("charge %s is already in an open agreement: cancel that one first", notify.ChargeName(c)))
		}
		b, err := ledger.ChargeBreakdown(c, st, today)
		if err != nil {
			return err
		}
		p.charges = append(p.charges, c)
		p.updated = append(p.updated, b.Updated)
		p.original += b.Updated
	}
	return nil
}

// proposeTerms computes p's discount (under the settings' cap), down
// payment, installments and their due dates from in, on today.
func proposeTerms(st ledger.Settings, today bankcalendar.Date, in *CreateAgreementIn, p *proposal) error {
	var err error
	switch {
	case in.DiscountPercent != nil:
		pct, err := ledger.PercentIn("discount_percent", *in.DiscountPercent)
		if err != nil {
			return err
		}
		p.discount = PercentOf(p.original, pct)
	case in.DiscountAmount != nil:
		if p.discount, err = money.FromFloat(*in.DiscountAmount); err != nil {
			return ledger.Invalid("discount_amount", err.Error())
		}
	}
	if max := PercentOf(p.original, st.AgreementMaxDiscount); p.discount > max {
		return rest.Unprocessable(fmt.Sprintf("rule max_discount: a discount of %s is more than the %s the organization allows (%s of %s)",
			p.discount, st.AgreementMaxDiscount, max, p.original))
	}
	total := p.original - p.discount
	if in.DownPayment != nil {
		if p.down, err = money.FromFloat(*in.DownPayment); err != nil {
			return ledger.Invalid("down_payment", err.Error())
		}
		if p.down >= total {
			return ledger.Invalid("down_payment", fmt.Sprintf("must be less than the total of %s (an agreement needs installments)", total))
		}
	}
	if in.Installments < 1 || in.Installments > MaxAgreementInstallments {
		return ledger.Invalid("installments", fmt.Sprintf("must be from 1 to %d", MaxAgreementInstallments))
	}
	if money.Cents(in.Installments) > total-p.down {
		return ledger.Invalid("installments", "leave at least one cent for each installment")
	}
	p.dueDay = in.DueDay
	if p.dueDay == 0 {
		p.dueDay = today.Day()
	}
	cal := st.Calendar()
	p.downDate = cal.NextBusinessDay(today)
	p.parts = SplitCents(total-p.down, in.Installments)
	from := today
	if p.down > 0 {
		from = p.downDate
	}
	p.dates = MonthlyDueDates(from, p.dueDay, in.Installments, cal)
	return nil
}

// CreateAgreement stores a proposal with its schedule, asks for its term
// document and emits dunning.agreement.proposed, in one transaction.
func (s *Service) CreateAgreement(ctx context.Context, tx *store.Tx, orgID string, in *CreateAgreementIn) (ledger.AgreementRecord, error) {
	p, err := s.propose(ctx, tx, orgID, in)
	if err != nil {
		return ledger.AgreementRecord{}, err
	}
	now := s.Clock()
	a := ledger.AgreementRecord{ID: store.NewID(), OrganizationID: orgID, DebtorID: p.debtor.ID, Status: lifecycle.AgreementProposed, Original: p.original,
		Discount: p.discount, Total: p.original - p.discount, DownPayment: p.down, Installments: len(p.parts), DueDay: p.dueDay,
		Note: strings.TrimSpace(in.Note), CreatedBy: createdByOf(ctx), CreatedAt: now, UpdatedAt: now}
	if err := insertAgreement(ctx, tx, a); err != nil {
		return a, err
	}
	for i, c := range p.charges {
		if err := insertAgreementCharge(ctx, tx, a.ID, c.ID, c.OpenAmount, p.updated[i]); err != nil {
			return a, err
		}
	}
	if p.down > 0 {
		if err := insertDownPayment(ctx, tx, a.ID, p.down, p.downDate.String()); err != nil {
			return a, err
		}
	}
	for i, part := range p.parts {
		if err := insertInstallment(ctx, tx, a.ID, i+1, part, p.dates[i].String()); err != nil {
			return a, err
		}
	}
	doc, err := s.RequestDocumentTx(ctx, tx, orgID, files.DocumentAgreementTerm, a.ID)
	if err != nil {
		return a, err
	}
	if doc != "" {
		a.TermDocumentID = &doc
		if err := setAgreementTerm(ctx, tx, a.ID, doc); err != nil {
			return a, err
		}
	}
	return a, s.emitAgreementEvent(ctx, tx, EventAgreementProposed, a)
}

// acceptAgreement accepts a proposal: its charges become in_agreement
// (their enrollments stop, their queued messages are skipped, their
// reports and protests are asked out — the charge-closed hooks, in this
// transaction), and each installment becomes a charge. Accepting an
// accepted or active agreement changes nothing.
func (s *Service) acceptAgreement(ctx context.Context, tx *store.Tx, orgID, id string) (ledger.AgreementRecord, error) {
	a, err := ledger.GetAgreement(ctx, tx, orgID, id, ledger.ForUpdate(tx))
	if err != nil {
		return a, ledger.NotFoundAs(err, "agreement")
	}
	switch a.Status {
	case lifecycle.AgreementAccepted, lifecycle.AgreementActive:
		return a, nil
	case lifecycle.AgreementProposed:
	default:
		return a, rest.Unprocessable(fmt.Sprintf("%s %s agreement cannot be accepted: only a proposed one can", ledger.ArticleFor(string(a.Status)), a.Status))
	}
	charges, inst, err := ledger.AgreementParts(ctx, tx, a)
	if err != nil {
		return a, err
	}
	st, err := ledger.LoadSettings(ctx, tx, orgID)
	if err != nil {
		return a, err
	}
	now := s.Clock()
	for _, row := range charges {
		c, err := ledger.LockCharge(ctx, tx, orgID, row.ChargeID)
		if err != nil {
			return a, err
		}
		if err := c.Status.CanBecome(lifecycle.ChargeInAgreement); err != nil || c.ArchivedAt != nil {
			return a, rest.Unprocessable(fmt.Sprintf("charge %s is now %s: the agreement can no longer be accepted (propose a new one)", notify.ChargeName(c), c.Status))
		}
		next := c
		next.Status = lifecycle.ChargeInAgreement
		if _, err := s.ApplyCharge(ctx, tx, c, ledger.ChargeChange{Next: next}); err != nil {
			return a, err
		}
	}
	for _, in := range inst {
		due, err := bankcalendar.ParseDate(in.DueDate)
		if err != nil {
			return a, err
		}
		what := fmt.Sprintf("Acordo %s: parcela %d de %d", a.ID, in.Number, a.Installments)
		if in.Number == 0 {
			what = fmt.Sprintf("Acordo %s: entrada", a.ID)
		}
		status := lifecycle.ChargePending
		var overdueAt *time.Time
		if st.LateOn(due, st.Today(now)) {
			status, overdueAt = lifecycle.ChargeOverdue, &now
		}
		cid := store.NewID()
		if err := insertInstallmentCharge(ctx, tx, installmentCharge{ID: cid, OrganizationID: orgID, DebtorID: a.DebtorID, Amount: in.Amount,
			DueDate: in.DueDate, Description: what, AgreementID: a.ID, Status: status, OverdueAt: overdueAt, Now: now}); err != nil {
			return a, err
		}
		if err := ledger.SyncChargeCount(ctx, tx, cid); err != nil {
			return a, err
		}
		if err := linkInstallmentCharge(ctx, tx, a.ID, in.Number, cid); err != nil {
			return a, err
		}
		c, err := ledger.GetCharge(ctx, tx, orgID, cid)
		if err != nil {
			return a, err
		}
		if err := s.EmitChargeEvent(ctx, tx, ledger.EventChargeCreated, c); err != nil {
			return a, err
		}
	}
	if err := markAgreementAccepted(ctx, tx, a.ID, now); err != nil {
		return a, err
	}
	if err := s.redrawTermWithPix(ctx, tx, orgID, &a); err != nil {
		return a, err
	}
	a.Status, a.AcceptedAt, a.UpdatedAt = lifecycle.AgreementAccepted, &now, now
	return a, s.emitAgreementEvent(ctx, tx, EventAgreementAccepted, a)
}

// redrawTermWithPix draws an accepted agreement's term again when the
// creditor has a Pix key: its installments are charges now, and the term
// prints each one's Pix code (the proposal's term could not: nothing was
// payable yet).
func (s *Service) redrawTermWithPix(ctx context.Context, tx *store.Tx, orgID string, a *ledger.AgreementRecord) error {
	if _, hasPix, err := ledger.LoadPixReceiver(ctx, tx, orgID); err != nil || !hasPix {
		return err
	}
	doc, err := s.RequestDocumentTx(ctx, tx, orgID, files.DocumentAgreementTerm, a.ID)
	if err != nil || doc == "" {
		return err
	}
	a.TermDocumentID = &doc
	return setAgreementTerm(ctx, tx, a.ID, doc)
}

// cancelAgreement cancels a proposal, or an accepted or active agreement,
// which then unwinds as a broken one does (its charges owe again what
// the installments paid did not cover). Cancelling a canceled one
// changes nothing.
func (s *Service) cancelAgreement(ctx context.Context, tx *store.Tx, orgID, id string) (ledger.AgreementRecord, error) {
	a, err := ledger.GetAgreement(ctx, tx, orgID, id, ledger.ForUpdate(tx))
	if err != nil {
		return a, ledger.NotFoundAs(err, "agreement")
	}
	if a.Status == lifecycle.AgreementCanceled {
		return a, nil
	}
	if err := lifecycle.Agreements.Check(a.Status, lifecycle.AgreementCanceled); err != nil {
		return a, ledger.TransitionError(err)
	}
	if a.Status != lifecycle.AgreementProposed {
		return a, s.unwindAgreement(ctx, tx, &a, lifecycle.AgreementCanceled, "canceled")
	}
	return a, s.endAgreement(ctx, tx, &a, lifecycle.AgreementCanceled, "canceled")
}

// describeAgreement names an agreement in a confirmation.
func (s *Service) describeAgreement(ctx context.Context, id, verb, consequence string) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	a, err := ledger.GetAgreement(ctx, s.DB, t.OrgID, id, "")
	if err != nil {
		return "", ledger.NotFoundAs(err, "agreement")
	}
	d, err := ledger.GetDebtor(ctx, s.DB, t.OrgID, a.DebtorID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s the %s agreement %s with '%s': %s (discount %s), down payment %s and %d installments? %s", verb, a.Status, a.ID, d.Name,
		a.Total, a.Discount, a.DownPayment, a.Installments, consequence), nil
}

// registerAgreements declares the agreements' operations.
func registerAgreements(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_agreements_list", Method: "GET", Path: "/agreements", Tags: []string{"agreements"},
		Title:    "List agreements",
		Summary:  "Lists the organization's agreements, newest first, numbered pages, with their charges and installment schedule; filters status and debtor_id.",
		Requires: agreementsRead, Annotations: restkit.ReadOnly(),
	}, s.agreementsList)
	rest.Handle(api, rest.Operation{
		ID: "dunning_agreements_get", Method: "GET", Path: "/agreements/{id}", Tags: []string{"agreements"},
		Title:    "Get an agreement",
		Summary:  "Gets one agreement: its amounts (original, discount, total, down payment), its charges with what each owed, its installments with their due dates and, once accepted, each installment's charge and status, and its term document.",
		Requires: agreementsRead, Annotations: restkit.ReadOnly(),
	}, s.agreementsGet)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_agreements_create", Method: "POST", Path: "/agreements", Tags: []string{"agreements"},
		Title: "Propose an agreement",
		Summary: "Proposes a renegotiation of a debtor's pending or overdue charges: their updated amount today, less a discount (percent or amount, at most the settings' agreement_max_discount_percent: rule max_discount), as a down payment and 1–60 monthly installments in whole cents adding up exactly (the remainder on the first), due on due_day moved to the next business day. " +
			"Answers 201 with the proposal (proposed) and emits dunning.agreement.proposed; its term document is generated. Nothing changes for the charges until it is accepted.",
		Description: "Destructive: it puts a settlement offer on record for the debtor; every call makes a new proposal.",
		Requires:    agreementsWrite, Annotations: restkit.Destructive(false), ConsumesConfirmation: true,
	}, s.describeAgreementsCreate, s.agreementsCreate)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_agreements_accept", Method: "POST", Path: "/agreements/{id}/accept", Tags: []string{"agreements"},
		Title:       "Accept an agreement",
		Summary:     "Records the debtor's acceptance of a proposal: its charges become in_agreement (their collection plans stop, their credit reports' removal and protests' cancellation are requested) and each installment becomes a charge, paid with dunning_charges_payments_create. The agreement settles when the last is paid and breaks when one is late beyond the settings' agreement_grace_days. Accepting again changes nothing.",
		Description: "Destructive: the charges leave collection and the debtor's reports are removed.",
		Requires:    agreementsManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeAgreementsAccept, s.agreementsAccept)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_agreements_cancel", Method: "POST", Path: "/agreements/{id}/cancel", Tags: []string{"agreements"},
		Title:       "Cancel an agreement",
		Summary:     "Cancels a proposal, or an accepted or active agreement: its unpaid installments are canceled and its charges go back to overdue owing what the installments paid did not cover. Cancelling again changes nothing.",
		Description: "Destructive: the renegotiation ends and collection of the charges can start again.",
		Requires:    agreementsManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeAgreementsCancel, s.agreementsCancel)
}

// agreementsList answers dunning_agreements_list.
func (s *Service) agreementsList(ctx context.Context, in *agreementsListIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	f := ledger.AgreementListFilter{Status: in.Status}
	if in.DebtorID != "" {
		d, err := ledger.GetDebtor(ctx, s.DB, t.OrgID, in.DebtorID)
		if err != nil {
			return nil, ledger.NotFoundAs(err, "debtor")
		}
		f.DebtorID = d.ID
	}
	page, perPage, offset := in.Window()
	f.Limit, f.Offset = perPage, offset
	rows, total, err := ledger.ListAgreements(ctx, s.DB, t.OrgID, f)
	if err != nil {
		return nil, err
	}
	views := make([]agreementJSON, 0, len(rows))
	for _, a := range rows {
		j, err := s.showAgreement(ctx, s.DB, a)
		if err != nil {
			return nil, err
		}
		views = append(views, j)
	}
	return restkit.NumberedPage(views, page, perPage, total, func(j agreementJSON) agreementJSON { return j }), nil
}

// agreementsGet answers dunning_agreements_get.
func (s *Service) agreementsGet(ctx context.Context, in *agreementIDIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	a, err := ledger.GetAgreement(ctx, s.DB, t.OrgID, in.ID, "")
	if err != nil {
		return nil, ledger.NotFoundAs(err, "agreement")
	}
	j, err := s.showAgreement(ctx, s.DB, a)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": j}), nil
}

// describeAgreementsCreate is the confirmation dunning_agreements_create asks for.
func (s *Service) describeAgreementsCreate(ctx context.Context, in *CreateAgreementIn) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	p, err := s.propose(ctx, s.DB, t.OrgID, in)
	if err != nil {
		return "", err
	}
	first := p.parts[0]
	return fmt.Sprintf("Propose to '%s' an agreement over %d charges of %s: discount %s, down payment %s and %d installments (the first %s, due %s)?",
		p.debtor.Name, len(p.charges), p.original, p.discount, p.down, len(p.parts), first, p.dates[0].BR()), nil
}

// agreementsCreate answers dunning_agreements_create.
func (s *Service) agreementsCreate(ctx context.Context, in *CreateAgreementIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var j agreementJSON
	err = s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		a, err := s.CreateAgreement(ctx, tx, t.OrgID, in)
		if err != nil {
			return err
		}
		j, err = s.showAgreement(ctx, tx, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rest.Created(map[string]any{"data": j}), nil
}

// describeAgreementsAccept is the confirmation dunning_agreements_accept asks for.
func (s *Service) describeAgreementsAccept(ctx context.Context, in *agreementIDIn) (string, error) {
	return s.describeAgreement(ctx, in.ID, "Accept", "The charges leave collection and their reports are removed.")
}

// agreementsAccept answers dunning_agreements_accept.
func (s *Service) agreementsAccept(ctx context.Context, in *agreementIDIn) (*rest.Response, error) {
	return s.changeAgreement(ctx, in.ID, s.acceptAgreement)
}

// describeAgreementsCancel is the confirmation dunning_agreements_cancel asks for.
func (s *Service) describeAgreementsCancel(ctx context.Context, in *agreementIDIn) (string, error) {
	return s.describeAgreement(ctx, in.ID, "Cancel", "Its charges owe again what was not paid.")
}

// agreementsCancel answers dunning_agreements_cancel.
func (s *Service) agreementsCancel(ctx context.Context, in *agreementIDIn) (*rest.Response, error) {
	return s.changeAgreement(ctx, in.ID, s.cancelAgreement)
}

// changeAgreement runs fn, an agreement's change of state, in the
// transaction that consumes its confirmation, and answers the agreement.
func (s *Service) changeAgreement(ctx context.Context, id string, fn func(ctx context.Context, tx *store.Tx, orgID, id string) (ledger.AgreementRecord, error)) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var j agreementJSON
	err = s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		a, err := fn(ctx, tx, t.OrgID, id)
		if err != nil {
			return err
		}
		j, err = s.showAgreement(ctx, tx, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": j}), nil
}
