package escalation

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Self-service agreements (docs/dunning.md "Self-service agreement"): the
// debtor page offers the debtor, when the creditor enabled it
// (ledger.PortalSettings), an agreement over all their open charges in 1
// to the settings' most installments, with the settings' discount on
// fine and interest. The offer is a CreateAgreementIn computed by the
// same propose as dunning_agreements_create, and accepting it is
// CreateAgreement followed by acceptAgreement in one transaction — the
// very writes of an admin proposing and accepting — recorded as created
// by PortalActor. No rule lives here that dunning_agreements_create does
// not apply too: the portal's settings only choose the arguments.

// PortalActor is the created_by of an agreement the debtor accepted on
// the debtor page.
const PortalActor = "debtor:portal"

// AgreementOffer is one agreement the page offers.
type AgreementOffer struct {
	Installments int
	Original     money.Cents
	Discount     money.Cents
	Total        money.Cents
	Parts        []money.Cents
	Dates        []bankcalendar.Date
	ChargeIDs    []string
}

// PortalCharges are the debtor's charges an agreement of the page
// renegotiates: the open ones, but an agreement's own installments and
// the charges of an open agreement.
func PortalCharges(ctx context.Context, q store.Querier, orgID, debtorID string) ([]ledger.Charge, error) {
	rows, err := ledger.OpenChargesOfDebtor(ctx, q, orgID, debtorID)
	if err != nil {
		return nil, err
	}
	out := rows[:0]
	for _, c := range rows {
		if c.Origin == OriginAgreement {
			continue
		}
		open, err := openAgreementsOf(ctx, q, c.ID)
		if err != nil {
			return nil, err
		}
		if open == 0 {
			out = append(out, c)
		}
	}
	return out, nil
}

// PortalAgreementIn is the agreement the page offers over charges in n
// installments on today: no down payment, the settings' discount of the
// charges' fine and interest (never more than agreement_max_discount of
// the whole, which propose checks again), the first installment
// FirstDueDays after today.
func PortalAgreementIn(st ledger.Settings, debtorID string, charges []ledger.Charge, today bankcalendar.Date, n int) (*CreateAgreementIn, error) {
	in := &CreateAgreementIn{DebtorID: debtorID, Installments: n, DueDay: today.AddDays(st.FirstDueDays).Day(),
		Note: "Acordo aceito pelo devedor na página de pagamento."}
	var late, whole money.Cents
	for _, c := range charges {
		b, err := ledger.ChargeBreakdown(c, st, today)
		if err != nil {
			return nil, err
		}
		late += b.Fine + b.Interest
		whole += b.Updated
		in.ChargeIDs = append(in.ChargeIDs, c.ID)
	}
	discount := min(PercentOf(late, st.MaxDiscount), PercentOf(whole, st.AgreementMaxDiscount))
	if discount > 0 {
		// Whole cents as BRL: exact in a float64 for any amount a charge
		// may have (money.Max), and read back by money.FromFloat.
		v := discount.Float64()
		in.DiscountAmount = &v
	}
	return in, nil
}

// PortalOffers are the agreements the page offers the debtor on today:
// one per number of installments the settings allow that the rules
// accept (each installment at least a cent), none when the settings do
// not enable them or nothing is open.
func (s *Service) PortalOffers(ctx context.Context, q store.Querier, st ledger.Settings, debtorID string, today bankcalendar.Date) ([]AgreementOffer, error) {
	if !st.AgreementsEnabled() {
		return nil, nil
	}
	charges, err := PortalCharges(ctx, q, st.OrganizationID, debtorID)
	if err != nil || len(charges) == 0 {
		return nil, err
	}
	if len(charges) > MaxAgreementCharges {
		charges = charges[:MaxAgreementCharges]
	}
	var out []AgreementOffer
	for n := 1; n <= min(st.MaxInstallments, MaxAgreementInstallments); n++ {
		in, err := PortalAgreementIn(st, debtorID, charges, today, n)
		if err != nil {
			return nil, err
		}
		p, err := s.proposeOn(ctx, q, st, today, in)
		var re *rest.Error
		if errors.As(err, &re) {
			continue // a rule refuses this one (too few cents for n installments)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, offerOf(n, p))
	}
	return out, nil
}

func offerOf(n int, p proposal) AgreementOffer {
	o := AgreementOffer{Installments: n, Original: p.original, Discount: p.discount, Total: p.original - p.discount, Parts: p.parts, Dates: p.dates}
	for _, c := range p.charges {
		o.ChargeIDs = append(o.ChargeIDs, c.ID)
	}
	return o
}

// proposeOn is propose on a given day and settings, for the page, which
// shows the offers of the day it read.
func (s *Service) proposeOn(ctx context.Context, q store.Querier, st ledger.Settings, today bankcalendar.Date, in *CreateAgreementIn) (proposal, error) {
	var p proposal
	d, err := ledger.GetDebtor(ctx, q, st.OrganizationID, in.DebtorID)
	if err != nil {
		return p, err
	}
	p.debtor = d
	if err := s.proposeCharges(ctx, q, st.OrganizationID, st, today, in, &p); err != nil {
		return p, err
	}
	return p, proposeTerms(st, today, in, &p)
}

// ErrOfferChanged is an acceptance of an offer that is no longer the
// page's: the day, the charges or the settings changed since it was shown.
var ErrOfferChanged = errors.New("dunning: the agreement offered changed")

// AcceptOnPortal makes and accepts, in tx, the page's agreement of n
// installments for the debtor, which must still total total: the
// CreateAgreement and acceptAgreement of an admin, recorded as created
// by PortalActor, with their events (dunning.agreement.proposed and
// .accepted).
func (s *Service) AcceptOnPortal(ctx context.Context, tx *store.Tx, orgID, debtorID string, n int, total money.Cents) (ledger.AgreementRecord, error) {
	// One acceptance of the debtor's at a time: two forms sent at once
	// would otherwise both propose over the same charges, each holding
	// the key-share locks its agreement's rows take on them while waiting
	// for the other's to lock them for the accept (a deadlock on
	// PostgreSQL). The second waits here, then finds them in agreement.
	var locked string
	if err := tx.Get(ctx, &locked, `SELECT id FROM dunning_debtors WHERE organization_id = ? AND id = ?`+ledger.ForUpdate(tx), orgID, debtorID); err != nil {
		return ledger.AgreementRecord{}, err
	}
	st, err := ledger.LoadSettings(ctx, tx, orgID)
	if err != nil {
		return ledger.AgreementRecord{}, err
	}
	if !st.AgreementsEnabled() || n < 1 || n > st.MaxInstallments {
		return ledger.AgreementRecord{}, ErrOfferChanged
	}
	today := st.Today(s.Clock())
	charges, err := PortalCharges(ctx, tx, orgID, debtorID)
	if err != nil {
		return ledger.AgreementRecord{}, err
	}
	if len(charges) == 0 {
		return ledger.AgreementRecord{}, ErrOfferChanged
	}
	if len(charges) > MaxAgreementCharges {
		charges = charges[:MaxAgreementCharges]
	}
	in, err := PortalAgreementIn(st, debtorID, charges, today, n)
	if err != nil {
		return ledger.AgreementRecord{}, err
	}
	ctx = context.WithValue(ctx, createdByKey{}, PortalActor)
	a, err := s.CreateAgreement(ctx, tx, orgID, in)
	if err != nil {
		var re *rest.Error
		if errors.As(err, &re) {
			return a, fmt.Errorf("%w: %s", ErrOfferChanged, re.Message)
		}
		return a, err
	}
	if a.Total != total {
		return a, ErrOfferChanged
	}
	return s.acceptAgreement(ctx, tx, orgID, a.ID)
}
