package files

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/kobana/kobana-mcp/dunning/calendar"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// What each export reads and how its rows become CSV records. The filters
// mean what they mean on the list routes (charges.go, debtors.go,
// notifications_api.go); the rows are read by one query in the list's
// order and written out one by one as the cursor returns them
// (streamRows), so an export of any size holds one row at a time.

// exportCells formats the values of a record for the export's separator:
// ',' is RFC 4180 with 1234.56 and 2026-03-10; ';' is what a spreadsheet
// in Brazilian Portuguese reads as numbers and dates, 1234,56 and
// 10/03/2026. Instants are in the organization's zone.
type exportCells struct {
	brazilian bool
	zone      *time.Location
}

func (c exportCells) money(v money.Cents) string {
	d := v.Decimal()
	if c.brazilian {
		return strings.Replace(d, ".", ",", 1)
	}
	return d
}

func (c exportCells) date(d calendar.Date) string {
	if c.brazilian {
		return d.BR()
	}
	return d.String()
}

func (c exportCells) instant(t *time.Time) string {
	if t == nil {
		return ""
	}
	lt := t.In(c.zone)
	if c.brazilian {
		return lt.Format("02/01/2006 15:04:05")
	}
	return lt.Format(time.RFC3339)
}

func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

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
	write func(ctx context.Context, db *store.DB, orgID string, f exportFilters, st ledger.Settings, on calendar.Date, cells exportCells, emit func([]string) error) error
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

// onlyFilters refuses, by name, a filter the resource has not.
func onlyFilters(f exportFilters, allowed []string) error {
	given := map[string]bool{"status": f.Status != "", "debtor_id": f.DebtorID != "", "charge_id": f.ChargeID != "", "due_from": f.DueFrom != "",
		"due_to": f.DueTo != "", "plan_id": f.PlanID != "", "q": f.Q != "", "document": f.Document != "", "channel": f.Channel != "",
		"archived": f.Archived, "sort_by": f.SortBy != "", "sort_order": f.SortOrder != ""}
	for _, name := range []string{"status", "debtor_id", "charge_id", "due_from", "due_to", "plan_id", "q", "document", "channel", "archived", "sort_by", "sort_order"} {
		if given[name] && !contains(allowed, name) {
			return ledger.Invalid("filters."+name, "is not a filter of this resource (its filters: "+strings.Join(allowed, ", ")+")")
		}
	}
	return nil
}

// prefixColumns is a column list with each column qualified by alias.
func prefixColumns(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// commaList splits a comma list, trimmed, without empty items.
func commaList(s string) []string {
	return ledger.CleanStrings(strings.Split(s, ","))
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

var chargeSortColumns = map[string]string{"": "due_date", "due_date": "due_date", "amount": "amount_cents", "created_at": "created_at", "updated_at": "updated_at"}

// chargeExportRow is a charge with its debtor's names.
type chargeExportRow struct {
	ledger.Charge
	DebtorExternalID string `db:"debtor_external_id"`
	DebtorName       string `db:"debtor_name"`
	DebtorDocument   string `db:"debtor_document"`
	// How the charge's payments were imputed, summed (dunning_payments).
	PaidInterest  money.Cents `db:"paid_interest"`
	PaidFine      money.Cents `db:"paid_fine"`
	PaidPrincipal money.Cents `db:"paid_principal"`
}

// streamRows runs one query and hands each row to each as the database
// returns it: database/sql's cursor (pgx reads the result from the
// connection as it goes, SQLite steps the statement), so a result of any
// size is never held. The query is written with ? placeholders, as every
// query of the store, and rebound for the engine; it runs outside any
// transaction, while the export's parts are inserted on other
// connections (SQLite's WAL lets one writer go on beside the reader).
func streamRows[R any](ctx context.Context, db *store.DB, query string, args []any, each func(R) error) error {
	bind, driver := sqlx.QUESTION, "sqlite"
	if db.Dialect() == store.Postgres {
		bind, driver = sqlx.DOLLAR, "pgx"
	}
	x := sqlx.NewDb(db.SQL(), driver)
	rows, err := x.QueryxContext(ctx, sqlx.Rebind(bind, query), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r R
		if err := rows.StructScan(&r); err != nil {
			return err
		}
		if err := each(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// orderBy is "ORDER BY t.col dir, t.id dir".
func orderBy(col string, desc bool) string {
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	return ` ORDER BY t.` + col + ` ` + dir + `, t.id ` + dir
}

func writeCharges(ctx context.Context, db *store.DB, orgID string, f exportFilters, st ledger.Settings, on calendar.Date, cells exportCells, emit func([]string) error) error {
	where := []string{"t.organization_id = ?"}
	args := []any{orgID}
	if f.Archived {
		where = append(where, "t.archived_at IS NOT NULL")
	} else {
		where = append(where, "t.archived_at IS NULL")
	}
	if sts := commaList(f.Status); len(sts) > 0 {
		where = append(where, "t.status IN (?"+strings.Repeat(", ?", len(sts)-1)+")")
		for _, s := range sts {
			args = append(args, s)
		}
	}
	if f.DebtorID != "" {
		where = append(where, "t.debtor_id IN (SELECT id FROM dunning_debtors WHERE organization_id = ? AND (id = ? OR external_id = ?))")
		args = append(args, orgID, f.DebtorID, f.DebtorID)
	}
	if f.DueFrom != "" {
		where = append(where, "t.due_date >= ?")
		args = append(args, f.DueFrom)
	}
	if f.DueTo != "" {
		where = append(where, "t.due_date <= ?")
		args = append(args, f.DueTo)
	}
	if f.PlanID != "" {
		where = append(where, `EXISTS (SELECT 1 FROM dunning_enrollments e WHERE e.charge_id = t.id AND e.organization_id = ?
			AND e.plan_id IN (SELECT id FROM dunning_plans WHERE organization_id = ? AND (id = ? OR external_id = ?)))`)
		args = append(args, orgID, orgID, f.PlanID, f.PlanID)
	}
	if text := strings.TrimSpace(f.Q); text != "" {
		p := ledger.LikeContains(strings.ToLower(text))
		where = append(where, `(LOWER(t.description) LIKE ? ESCAPE '\' OR LOWER(COALESCE(t.external_id, '')) LIKE ? ESCAPE '\' OR LOWER(d.name) LIKE ? ESCAPE '\')`)
		args = append(args, p, p, p)
	}
	query := `SELECT t.*, d.external_id AS debtor_external_id, d.name AS debtor_name, d.document AS debtor_document, d.person_kind AS debtor_person_kind,
		(SELECT COALESCE(SUM(p.applied_interest_cents), 0) FROM dunning_payments p WHERE p.charge_id = t.id) AS paid_interest,
		(SELECT COALESCE(SUM(p.applied_fine_cents), 0) FROM dunning_payments p WHERE p.charge_id = t.id) AS paid_fine,
		(SELECT COALESCE(SUM(p.applied_principal_cents), 0) FROM dunning_payments p WHERE p.charge_id = t.id) AS paid_principal
		FROM dunning_charges t JOIN dunning_debtors d ON d.id = t.debtor_id WHERE ` + strings.Join(where, " AND ") + orderBy(chargeSortColumns[f.SortBy], f.SortOrder == "desc")
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

var debtorSortColumns = map[string]string{"": "name", "name": "name", "created_at": "created_at", "updated_at": "updated_at"}

// debtorExportRow is a debtor with what it owes in collection.
type debtorExportRow struct {
	ledger.Debtor
	OpenCents money.Cents `db:"open_cents"`
}

func writeDebtors(ctx context.Context, db *store.DB, orgID string, f exportFilters, _ ledger.Settings, _ calendar.Date, cells exportCells, emit func([]string) error) error {
	status := f.Status
	if status == "" {
		status = ledger.DebtorActive
	}
	where := []string{"t.organization_id = ?", "t.status = ?"}
	args := []any{orgID, status}
	if text := strings.TrimSpace(f.Q); text != "" {
		cond := `(LOWER(t.name) LIKE ? ESCAPE '\' OR LOWER(t.emails) LIKE ? ESCAPE '\'`
		args = append(args, ledger.LikeContains(strings.ToLower(text)), ledger.LikeContains(strings.ToLower(text)))
		if digits := brazil.NormalizeDocument(text); digits != "" {
			cond += ` OR t.document LIKE ? ESCAPE '\'`
			args = append(args, ledger.LikeContains(digits))
		}
		where = append(where, cond+")")
	}
	if f.Document != "" {
		where = append(where, "t.document = ?")
		args = append(args, brazil.NormalizeDocument(f.Document))
	}
	query := `SELECT t.*, (SELECT COALESCE(SUM(c.open_amount_cents), 0) FROM dunning_charges c WHERE c.organization_id = t.organization_id AND c.debtor_id = t.id
			AND c.status IN ('pending', 'overdue') AND c.archived_at IS NULL) AS open_cents
		FROM dunning_debtors t WHERE ` + strings.Join(where, " AND ") + orderBy(debtorSortColumns[f.SortBy], f.SortOrder == "desc")
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

func writeNotifications(ctx context.Context, db *store.DB, orgID string, f exportFilters, _ ledger.Settings, _ calendar.Date, cells exportCells, emit func([]string) error) error {
	where := []string{"t.organization_id = ?"}
	args := []any{orgID}
	if f.ChargeID != "" {
		where = append(where, "t.charge_id = ?")
		args = append(args, f.ChargeID)
	}
	if f.DebtorID != "" {
		where = append(where, "t.debtor_id = ?")
		args = append(args, f.DebtorID)
	}
	if sts := commaList(f.Status); len(sts) > 0 {
		where = append(where, "t.status IN (?"+strings.Repeat(", ?", len(sts)-1)+")")
		for _, s := range sts {
			args = append(args, s)
		}
	}
	if f.Channel != "" {
		where = append(where, "t.channel = ?")
		args = append(args, f.Channel)
	}
	// Newest first, as the log lists them.
	query := `SELECT ` + prefixColumns("t", notify.NotificationColumns) + ` FROM dunning_notifications t WHERE ` + strings.Join(where, " AND ") + orderBy("created_at", true)
	return streamRows(ctx, db, query, args, func(n notify.Notification) error {
		return emit([]string{n.ID, cells.instant(&n.CreatedAt), n.Kind, n.Channel, n.ToAddress, strOrEmpty(n.Subject), n.Status, n.Provider,
			n.DebtorID, strOrEmpty(n.ChargeID), cells.instant(n.SentAt), cells.instant(n.DeliveredAt), cells.instant(n.FailedAt), strOrEmpty(n.Error)})
	})
}
