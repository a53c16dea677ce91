package ledger

import (
	"context"
	"net/http"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// A debtor's kind decides its charges' caps when their amounts are
// computed (chargeBreakdown), not only when they are saved: a document
// changed from a CNPJ to a CPF holds every open charge to CDC art. 52
// §1's 2 % fine and the Lei de Usura's 1 % a month at once, and back to
// a CNPJ the stored rates apply again within the organization's company
// caps. The debtor's PUT and PATCH answer which open charges the change
// recapped (charges_recapped), so the creditor sees what it now charges.

// chargeRecapJSON is an open charge whose effective rates a change of
// its debtor's kind changed: the stored rates, and the rates charged
// before and after (each the stored one within the caps of the kind).
type chargeRecapJSON struct {
	ID                    string          `json:"id"`
	ExternalID            *string         `json:"external_id"`
	FinePercentStored     latefee.Percent `json:"fine_percent_stored"`
	FinePercentBefore     latefee.Percent `json:"fine_percent_before"`
	FinePercentNow        latefee.Percent `json:"fine_percent_now"`
	InterestPercentStored latefee.Percent `json:"interest_percent_stored"`
	InterestPercentBefore latefee.Percent `json:"interest_percent_before"`
	InterestPercentNow    latefee.Percent `json:"interest_percent_now"`
}

// debtorChangedJSON is a debtor's answer to PUT and PATCH: the debtor
// and the open charges whose caps its new kind changed.
type debtorChangedJSON struct {
	debtorDetailJSON
	ChargesRecapped []chargeRecapJSON `json:"charges_recapped"`
}

// recappedCharges are the debtor's open charges (pending or overdue,
// not archived) whose effective rates differ between kind before and
// kind now; none when the kind did not change.
func recappedCharges(ctx context.Context, q store.Querier, orgID, debtorID, before, now string) ([]chargeRecapJSON, error) {
	out := []chargeRecapJSON{}
	kb, kn := Debtor{PersonKind: before}.FeeKind(), Debtor{PersonKind: now}.FeeKind()
	if kb == kn {
		return out, nil
	}
	st, err := LoadSettings(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	rows, err := openChargesOfDebtor(ctx, q, orgID, debtorID)
	if err != nil {
		return nil, err
	}
	for _, c := range rows {
		fb, ib := st.Caps().Limit(kb, c.Fine, c.Interest)
		fn, in := st.Caps().Limit(kn, c.Fine, c.Interest)
		if fb == fn && ib == in {
			continue
		}
		out = append(out, chargeRecapJSON{ID: c.ID, ExternalID: c.ExternalID, FinePercentStored: c.Fine, FinePercentBefore: fb, FinePercentNow: fn,
			InterestPercentStored: c.Interest, InterestPercentBefore: ib, InterestPercentNow: in})
	}
	return out, nil
}

// debtorChangedAnswer is debtorAnswer with the charges recapped.
func (s *Service) debtorChangedAnswer(ctx context.Context, d Debtor, status int, recapped []chargeRecapJSON) (*rest.Response, error) {
	out, err := debtorDetail(ctx, s.DB, d)
	if err != nil {
		return nil, err
	}
	if recapped == nil {
		recapped = []chargeRecapJSON{}
	}
	if status == 0 {
		status = http.StatusOK
	}
	return &rest.Response{Status: status, Body: map[string]any{"data": debtorChangedJSON{debtorDetailJSON: out, ChargesRecapped: recapped}}}, nil
}
