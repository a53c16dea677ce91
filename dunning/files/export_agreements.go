package files

import (
	"context"
	"strconv"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
)

// agreementExportHeader is the header of an agreements export: one row
// per agreement, its figures as proposed (docs/decisions.md "Dunning:
// credit bureaus, protest and agreements").
var agreementExportHeader = []string{"id", "debtor_id", "debtor_external_id", "debtor_name", "debtor_document", "status", "original_amount",
	"discount_amount", "total_amount", "down_payment", "installments_count", "due_day", "accepted_at", "ended_at", "end_reason", "created_at"}

// checkAgreementFilters accepts the agreements list's own filters: status
// (one of the agreement states) and debtor_id (id or external_id, which
// must be the organization's).
func checkAgreementFilters(ctx context.Context, q store.Querier, orgID string, f exportFilters) (exportFilters, error) {
	if err := onlyFilters(f, []string{"status", "debtor_id"}); err != nil {
		return f, err
	}
	if f.Status != "" {
		ok := false
		for _, s := range []lifecycle.AgreementStatus{lifecycle.AgreementProposed, lifecycle.AgreementAccepted, lifecycle.AgreementActive,
			lifecycle.AgreementSettled, lifecycle.AgreementBroken, lifecycle.AgreementCanceled} {
			ok = ok || f.Status == string(s)
		}
		if !ok {
			return f, ledger.Invalid("filters.status", "must be proposed, accepted, active, settled, broken or canceled")
		}
	}
	if f.DebtorID != "" {
		d, err := ledger.GetDebtor(ctx, q, orgID, f.DebtorID)
		if err != nil {
			return f, ledger.NotFoundAs(err, "debtor")
		}
		f.DebtorID = d.ID
	}
	return f, nil
}

// exportAgreementsRows emits one CSV record per agreement the filters
// select, newest first as the agreements list shows them, read through
// one cursor (streamRows).
func exportAgreementsRows(ctx context.Context, db *store.DB, orgID string, f exportFilters, _ ledger.Settings, _ bankcalendar.Date, cells exportCells, emit func([]string) error) error {
	query, args := agreementExportQuery(orgID, f)
	return streamRows(ctx, db, query, args, func(r agreementExportRow) error {
		a := r.AgreementRecord
		return emit([]string{a.ID, a.DebtorID, r.DebtorExternalID, r.DebtorName, brazil.FormatDocument(r.DebtorDocument), string(a.Status),
			cells.money(a.Original), cells.money(a.Discount), cells.money(a.Total), cells.money(a.DownPayment), strconv.Itoa(a.Installments),
			strconv.Itoa(a.DueDay), cells.instant(a.AcceptedAt), cells.instant(a.EndedAt), strOrEmpty(a.EndReason), cells.instant(&a.CreatedAt)})
	})
}
