package files

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
)

// What each export reads and how its rows become CSV records. The filters
// mean what they mean on the list routes (dunning/ledger's charges.go and
// debtors.go, dunning/notify's notifications_api.go); the rows are read by one query in the list's
// order and written out one by one as the cursor returns them
// (streamRows), so an export of any size holds one row at a time.

// exportSource is one resource an export reads.
type exportSource struct {
	// scope is the list's scope, which making the export needs too.
	scope string
	// allowed are the filters the resource has.
	allowed []string
	header  []string
	// check validates the filters in q and answers them as stored.
	check func(ctx context.Context, q store.Querier, orgID string, f exportFilters) (exportFilters, error)
	// write emits every record the filters select, in order.
	write func(ctx context.Context, db *store.DB, orgID string, f exportFilters, st ledger.Settings, on bankcalendar.Date, cells exportCells, emit func([]string) error) error
}

// The filters of each resource: its list route's.
var (
	chargeExportFilters       = []string{"status", "debtor_id", "due_from", "due_to", "plan_id", "q", "archived", "sort_by", "sort_order"}
	debtorExportFilters       = []string{"status", "q", "document", "sort_by", "sort_order"}
	notificationExportFilters = []string{"status", "debtor_id", "charge_id", "channel"}
)

// exportSources are the exports by resource (agreements:
// export_agreements.go).
var exportSources = map[string]exportSource{
	ExportCharges: {scope: "dunning.charges", allowed: chargeExportFilters,
		header: []string{"id", "external_id", "debtor_id", "debtor_external_id", "debtor_name", "debtor_document", "description", "status", "due_date",
			"amount", "open_amount", "fine_amount", "interest_amount", "updated_amount", "days_late", "amounts_on", "origin", "origin_ref", "tags", "paid_at", "created_at",
			"paid_interest", "paid_fine", "paid_principal"},
		check: checkChargeFilters, write: writeCharges},
	ExportDebtors: {scope: "dunning.debtors", allowed: debtorExportFilters,
		header: []string{"id", "external_id", "name", "document", "person_kind", "emails", "phones", "city", "state", "status", "open_amount", "created_at", "updated_at"},
		check:  checkDebtorFilters, write: writeDebtors},
	ExportNotifications: {scope: "dunning.notifications", allowed: notificationExportFilters,
		header: []string{"id", "created_at", "kind", "channel", "to", "subject", "status", "provider", "debtor_id", "charge_id", "sent_at", "delivered_at", "failed_at", "error"},
		check:  checkNotificationFilters, write: writeNotifications},
	ExportAgreements: {scope: "dunning.agreements", allowed: []string{"status", "debtor_id"}, header: agreementExportHeader,
		check: checkAgreementFilters, write: exportAgreementsRows},
}

func checkChargeFilters(_ context.Context, _ store.Querier, _ string, f exportFilters) (exportFilters, error) {
	if err := onlyFilters(f, chargeExportFilters); err != nil {
		return f, err
	}
	for _, st := range commaList(f.Status) {
		if _, err := lifecycle.Charges.Parse(st); err != nil {
			return f, ledger.Invalid("filters.status", err.Error())
		}
	}
	for field, v := range map[string]string{"filters.due_from": f.DueFrom, "filters.due_to": f.DueTo} {
		if v != "" {
			if _, err := ledger.DateIn(field, v); err != nil {
				return f, err
			}
		}
	}
	if _, ok := chargeSortColumns[f.SortBy]; !ok {
		return f, ledger.Invalid("filters.sort_by", "must be due_date, amount, created_at or updated_at")
	}
	return f, checkSortOrder(f.SortOrder)
}

func checkSortOrder(o string) error {
	if o != "" && o != "asc" && o != "desc" {
		return ledger.Invalid("filters.sort_order", "must be asc or desc")
	}
	return nil
}

func writeCharges(ctx context.Context, db *store.DB, orgID string, f exportFilters, st ledger.Settings, on bankcalendar.Date, cells exportCells, emit func([]string) error) error {
	query, args := chargeExportQuery(orgID, f)
	return streamRows(ctx, db, query, args, func(r chargeExportRow) error {
		c := r.Charge
		if err := c.Decode(); err != nil {
			return err
		}
		b, err := ledger.ChargeBreakdown(c, st, on)
		if err != nil {
			return err
		}
		var paidAt *time.Time
		if c.PaidAt != nil {
			paidAt = c.PaidAt
		}
		return emit([]string{c.ID, strOrEmpty(c.ExternalID), c.DebtorID, r.DebtorExternalID, r.DebtorName, brazil.FormatDocument(r.DebtorDocument),
			c.Description, string(c.Status), cells.date(c.DueDate), cells.money(c.Amount), cells.money(b.Open), cells.money(b.Fine),
			cells.money(b.Interest), cells.money(b.Updated), strconv.Itoa(b.DaysLate), cells.date(on), c.Origin, strOrEmpty(c.OriginRef),
			strings.Join(c.Tags, " "), cells.instant(paidAt), cells.instant(&c.CreatedAt),
			cells.money(r.PaidInterest), cells.money(r.PaidFine), cells.money(r.PaidPrincipal)})
	})
}

func checkDebtorFilters(_ context.Context, _ store.Querier, _ string, f exportFilters) (exportFilters, error) {
	if err := onlyFilters(f, debtorExportFilters); err != nil {
		return f, err
	}
	if f.Status != "" && f.Status != ledger.DebtorActive && f.Status != ledger.DebtorArchived {
		return f, ledger.Invalid("filters.status", "must be active or archived")
	}
	if _, ok := debtorSortColumns[f.SortBy]; !ok {
		return f, ledger.Invalid("filters.sort_by", "must be name, created_at or updated_at")
	}
	return f, checkSortOrder(f.SortOrder)
}

func writeDebtors(ctx context.Context, db *store.DB, orgID string, f exportFilters, _ ledger.Settings, _ bankcalendar.Date, cells exportCells, emit func([]string) error) error {
	status := f.Status
	if status == "" {
		status = ledger.DebtorActive
	}
	query, args := debtorExportQuery(orgID, status, f)
	return streamRows(ctx, db, query, args, func(r debtorExportRow) error {
		d := r.Debtor
		if err := d.Decode(); err != nil {
			return err
		}
		var city, state string
		if d.Address != nil {
			city, state = d.Address.City, d.Address.State
		}
		return emit([]string{d.ID, d.ExternalID, d.Name, brazil.FormatDocument(d.Document), d.PersonKind, strings.Join(d.Emails, " "),
			strings.Join(d.Phones, " "), city, state, d.Status, cells.money(r.OpenCents), cells.instant(&d.CreatedAt), cells.instant(&d.UpdatedAt)})
	})
}

func checkNotificationFilters(ctx context.Context, q store.Querier, orgID string, f exportFilters) (exportFilters, error) {
	if err := onlyFilters(f, notificationExportFilters); err != nil {
		return f, err
	}
	for _, st := range commaList(f.Status) {
		if !contains([]string{"queued", "sending", "sent", "delivered", "opened", "bounced", "failed", "unknown"}, st) {
			return f, ledger.Invalid("filters.status", "must be a comma list of queued, sending, sent, delivered, opened, bounced, failed, unknown")
		}
	}
	if f.Channel != "" && !contains(ledger.Channels, f.Channel) {
		return f, ledger.Invalid("filters.channel", "must be email, sms or whatsapp")
	}
	// As on the list, a charge or a debtor the organization has not is
	// NOT_FOUND; the export keeps its id.
	if f.ChargeID != "" {
		c, err := ledger.GetCharge(ctx, q, orgID, f.ChargeID)
		if err != nil {
			return f, ledger.NotFoundAs(err, "charge")
		}
		f.ChargeID = c.ID
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

func writeNotifications(ctx context.Context, db *store.DB, orgID string, f exportFilters, _ ledger.Settings, _ bankcalendar.Date, cells exportCells, emit func([]string) error) error {
	query, args := notificationExportQuery(orgID, f)
	return streamRows(ctx, db, query, args, func(n notify.Notification) error {
		return emit([]string{n.ID, cells.instant(&n.CreatedAt), n.Kind, n.Channel, n.ToAddress, strOrEmpty(n.Subject), n.Status, n.Provider,
			n.DebtorID, strOrEmpty(n.ChargeID), cells.instant(n.SentAt), cells.instant(n.DeliveredAt), cells.instant(n.FailedAt), strOrEmpty(n.Error)})
	})
}
