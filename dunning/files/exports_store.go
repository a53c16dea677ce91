package files

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The exports' SQL: their rows and parts (dunning_exports,
// dunning_export_parts) and the query each source streams its rows from
// (docs/decisions.md "Product code layout": an aggregate's SQL is in its
// *_store.go).

// exportFilters are the list routes' filters, the union of the three;
// each resource accepts only its own (exportSources) and refuses the
// others by name.
type exportFilters struct {
	Status    string `json:"status,omitempty" maxLength:"200" jsonschema:"charges: statuses, a comma list (pending, overdue, paid, canceled, written_off, in_agreement); debtors: active (default) or archived; notifications: statuses, a comma list."`
	DebtorID  string `json:"debtor_id,omitempty" maxLength:"255" jsonschema:"charges, notifications: only this debtor's (id or external_id)."`
	ChargeID  string `json:"charge_id,omitempty" maxLength:"255" jsonschema:"notifications: only those about this charge (id or external_id)."`
	DueFrom   string `json:"due_from,omitempty" format:"date" jsonschema:"charges: due on or after this date (YYYY-MM-DD)."`
	DueTo     string `json:"due_to,omitempty" format:"date" jsonschema:"charges: due on or before this date (YYYY-MM-DD)."`
	PlanID    string `json:"plan_id,omitempty" maxLength:"255" jsonschema:"charges: enrolled in this collection plan (id or external_id)."`
	Q         string `json:"q,omitempty" maxLength:"200" jsonschema:"charges: description, external_id or debtor's name contains this text; debtors: name, document or e-mail contains it."`
	Document  string `json:"document,omitempty" maxLength:"20" jsonschema:"debtors: only the debtor with this CPF or CNPJ."`
	Channel   string `json:"channel,omitempty" enum:"email,sms,whatsapp" jsonschema:"notifications: only this channel."`
	Archived  bool   `json:"archived,omitempty" jsonschema:"charges: archived charges instead of the others."`
	SortBy    string `json:"sort_by,omitempty" jsonschema:"charges: due_date (default), amount, created_at or updated_at; debtors: name (default), created_at or updated_at. Notifications are newest first."`
	SortOrder string `json:"sort_order,omitempty" enum:"asc,desc" jsonschema:"asc (default) or desc."`
}

// exportRow is a row of dunning_exports.
type exportRow struct {
	ID             string `db:"id"`
	OrganizationID string `db:"organization_id"`
	Resource       string `db:"resource"`
	FiltersJSON    string `db:"filters"`
	Separator      string `db:"separator"`
	// FormulaEscaping is FormulaQuote or FormulaNone (unsafe raw cells).
	FormulaEscaping string     `db:"formula_escaping"`
	Status          string     `db:"status"`
	AmountsOn       string     `db:"amounts_on"`
	RowCount        *int64     `db:"row_count"`
	ByteSize        *int64     `db:"byte_size"`
	Error           *string    `db:"error"`
	CreatedBy       string     `db:"created_by"`
	CreatedAt       time.Time  `db:"created_at"`
	UpdatedAt       time.Time  `db:"updated_at"`
	ReadyAt         *time.Time `db:"ready_at"`
}

func (e exportRow) filters() (exportFilters, error) {
	var f exportFilters
	err := json.Unmarshal([]byte(e.FiltersJSON), &f)
	return f, err
}

func (e exportRow) filename() string {
	return "export-" + e.Resource + "-" + e.AmountsOn + ".csv"
}

func GetExport(ctx context.Context, q store.Querier, orgID, id string) (exportRow, error) {
	var e exportRow
	err := q.Get(ctx, &e, `SELECT * FROM dunning_exports WHERE organization_id = ? AND id = ?`, orgID, id)
	return e, err
}

// prefixColumns is a column list with each column qualified by alias.
func prefixColumns(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// commaList splits a comma list, trimmed, without empty items.
func commaList(s string) []string {
	return ledger.CleanStrings(strings.Split(s, ","))
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

var debtorSortColumns = map[string]string{"": "name", "name": "name", "created_at": "created_at", "updated_at": "updated_at"}

// debtorExportRow is a debtor with what it owes in collection.
type debtorExportRow struct {
	ledger.Debtor
	OpenCents money.Cents `db:"open_cents"`
}

// agreementExportRow is an agreement with its debtor's names.
type agreementExportRow struct {
	ledger.AgreementRecord
	DebtorExternalID string `db:"debtor_external_id"`
	DebtorName       string `db:"debtor_name"`
	DebtorDocument   string `db:"debtor_document"`
}

// insertExport writes e, generating.
func insertExport(ctx context.Context, tx *store.Tx, e exportRow) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_exports (id, organization_id, resource, filters, separator, formula_escaping, status, amounts_on,
			created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.OrganizationID, e.Resource, e.FiltersJSON, e.Separator, e.FormulaEscaping, e.Status, e.AmountsOn, e.CreatedBy, e.CreatedAt, e.UpdatedAt)
	return err
}

// insertExportPart writes part seq of export id's file.
func insertExportPart(ctx context.Context, q store.Querier, id string, seq int, data []byte) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_export_parts (export_id, seq, data) VALUES (?, ?, ?)`, id, seq, data)
	return err
}

// deleteExportParts removes every part of export id's file.
func deleteExportParts(ctx context.Context, q store.Querier, id string) error {
	_, err := q.Exec(ctx, `DELETE FROM dunning_export_parts WHERE export_id = ?`, id)
	return err
}

// exportPart reads part seq of export id's file, store.ErrNotFound past
// its last.
func exportPart(ctx context.Context, q store.Querier, id string, seq int) ([]byte, error) {
	var part []byte
	err := q.Get(ctx, &part, `SELECT data FROM dunning_export_parts WHERE export_id = ? AND seq = ?`, id, seq)
	return part, err
}

// markExportReady records the counts of an export still generating; one
// that another run finished is store.ErrNotFound.
func markExportReady(ctx context.Context, tx *store.Tx, e exportRow, rows, size int64, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE dunning_exports SET status = ?, row_count = ?, byte_size = ?, ready_at = ?, updated_at = ?
				WHERE id = ? AND organization_id = ? AND status = ?`, FileReady, rows, size, now, now, e.ID, e.OrganizationID, FileGenerating))
}

// markExportFailed records why an export still generating failed; one
// that another run finished is store.ErrNotFound.
func markExportFailed(ctx context.Context, tx *store.Tx, e exportRow, failure string, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE dunning_exports SET status = ?, error = ?, updated_at = ?
				WHERE id = ? AND organization_id = ? AND status = ?`, FileFailed, failure, now, e.ID, e.OrganizationID, FileGenerating))
}

// chargeExportQuery selects the charges the filters select, each with
// its debtor and its payments' imputation summed, in the list's order.
func chargeExportQuery(orgID string, f exportFilters) (string, []any) {
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
	return query, args
}

// debtorExportQuery selects the debtors in status the filters select,
// each with what it owes in collection, in the list's order.
func debtorExportQuery(orgID, status string, f exportFilters) (string, []any) {
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
	return query, args
}

// notificationExportQuery selects the notifications the filters select,
// newest first.
func notificationExportQuery(orgID string, f exportFilters) (string, []any) {
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
	return query, args
}

// agreementExportQuery selects the agreements the filters select, each
// with its debtor's names, newest first.
func agreementExportQuery(orgID string, f exportFilters) (string, []any) {
	query := `SELECT t.*, d.external_id AS debtor_external_id, d.name AS debtor_name, d.document AS debtor_document
		FROM dunning_agreements t JOIN dunning_debtors d ON d.id = t.debtor_id WHERE t.organization_id = ?`
	args := []any{orgID}
	if f.Status != "" {
		query, args = query+` AND t.status = ?`, append(args, f.Status)
	}
	if f.DebtorID != "" {
		query, args = query+` AND t.debtor_id = ?`, append(args, f.DebtorID)
	}
	query += ` ORDER BY t.created_at DESC, t.id DESC`
	return query, args
}

// Export resources (dunning_exports.resource).
const (
	ExportCharges       = "charges"
	ExportDebtors       = "debtors"
	ExportNotifications = "notifications"
	ExportAgreements    = "agreements"
)

// Formula escapings of an export (dunning_exports.formula_escaping).
const (
	FormulaQuote = "quote"
	FormulaNone  = "none"
)

// csvContentType is the media type of every export.
const csvContentType = "text/csv; charset=utf-8; header=present"
