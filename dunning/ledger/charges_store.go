package ledger

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// chargeListFilter is a listing of charges: archived or live ones,
// optional filters (statuses already checked, a debtor or plan by id or
// external_id, due dates as YYYY-MM-DD, text), an order and a numbered
// page.
type chargeListFilter struct {
	Archived       bool
	Statuses       []string
	DebtorRef      string
	DueFrom, DueTo string
	PlanRef        string
	Q              string
	Order, Dir     string
	Limit, Offset  int
}

// chargeSortColumns are the columns dunning_charges_list sorts by, by its
// sort_by ("" is the default, due_date).
var chargeSortColumns = map[string]string{"": "c.due_date", "due_date": "c.due_date", "amount": "c.amount_cents", "created_at": "c.created_at", "updated_at": "c.updated_at"}

// chargeListColumns are what a listed charge shows and its amounts need
// (Charge without organization_id and the counters' bookkeeping), with
// its debtor's kind: the SQLite driver describes every result column on
// every run (docs/performance.md, "Dunning listings").
const chargeListColumns = `c.id, c.debtor_id, c.external_id, c.amount_cents, c.open_amount_cents, c.due_date, c.description,
	c.fine, c.interest, c.origin, c.origin_ref, c.barcode, c.payment_link, c.tags, c.custom_data, c.status, c.archived_at,
	c.overdue_at, c.paid_at, c.canceled_at, c.last_notified_at, c.created_at, c.updated_at,
	c.fine_due_cents, c.interest_due_cents, c.fine_assessed, c.accrual_from,
	(SELECT d.person_kind FROM dunning_debtors d WHERE d.id = c.debtor_id) AS debtor_person_kind`

// narrowedByStatusOnly says the counters can answer the filter's total.
func (f chargeListFilter) narrowedByStatusOnly() bool {
	return f.DebtorRef == "" && f.DueFrom == "" && f.DueTo == "" && f.PlanRef == "" && f.Q == ""
}

// listCharges reads a page of the organization's charges, each with its
// debtor's person_kind (Charge.DebtorPersonKind), and how many match in
// all: from the counters when only status and archiving narrow the list
// (docs/decisions.md, "Listings at scale"), else counted. The rows are
// not decoded.
func listCharges(ctx context.Context, q store.Querier, orgID string, f chargeListFilter) ([]listedCharge, int, error) {
	cond, args := chargeListWhere(orgID, f)
	// No room made in advance: the store makes the page's room when its
	// first row arrives (an empty page makes none).
	var rows []listedCharge
	if !f.narrowedByStatusOnly() {
		total, err := readNumberedPage(ctx, q, &rows, `SELECT `+chargeListColumns+`
		FROM dunning_charges c WHERE `+cond+` ORDER BY `+f.Order+` `+f.Dir+`, c.id `+f.Dir+` LIMIT ? OFFSET ?`,
			`SELECT COUNT(*) FROM dunning_charges c WHERE `+cond, args, f.Limit, f.Offset)
		return rows, total, err
	}
	l := markedList{table: "dunning_charges", alias: "c", columns: chargeListColumns, cond: cond, args: args,
		order: strings.TrimPrefix(f.Order, "c."), dir: f.Dir, counters: "dunning_charge_counts"}
	if f.Offset < markStride {
		total, ok, err := firstChargesWithTotal(ctx, q, orgID, l, f, &rows)
		if err != nil || ok {
			return rows, total, err
		}
		if total, ok := restkit.TotalFromPage(f.Offset, f.Limit, 0); ok {
			// An empty first page: none, without asking the counters.
			return rows, total, nil
		}
		// An empty page past the end: its total alone.
		total, err = chargeTotal(store.ShortRead(ctx), q, orgID, f.Archived, f.Statuses)
		return rows, total, err
	}
	total, err := chargeTotal(store.ShortRead(ctx), q, orgID, f.Archived, f.Statuses)
	if err != nil {
		return nil, 0, err
	}
	statuses := slices.Sorted(slices.Values(f.Statuses))
	l.key = listKey("charges", boolKey(f.Archived), strings.Join(statuses, ","), f.Order, f.Dir)
	// Pages the counters total seek under a remembered mark (page_marks.go).
	err = readMarkedPage(ctx, q, l, f.Limit, f.Offset, total, &rows)
	return rows, total, err
}

// listedCharge is a charge of a page and, when the page's statement read
// it (firstChargesWithTotal), the list's total from the counters.
type listedCharge struct {
	Charge
	ListTotal int `db:"list_total"`
}

// firstChargesWithTotal reads a page under markStride with the counters'
// total as a column of each row (chargeTotalSQL): one statement, one
// snapshot, where the total and the page were two (docs/decisions.md,
// "Dunning's listing CPU, second round"). False when the page is empty:
// the caller reads the total alone.
func firstChargesWithTotal(ctx context.Context, q store.Querier, orgID string, l markedList, f chargeListFilter, dest *[]listedCharge) (int, bool, error) {
	totalSQL, args := chargeTotalSQL(orgID, f.Archived, f.Statuses)
	args = append(append(args, l.args...), f.Limit, f.Offset)
	l.columns += `, ` + totalSQL + ` AS list_total`
	if err := q.Select(store.ShortRead(ctx), dest, l.pageSQL(""), args...); err != nil || len(*dest) == 0 {
		return 0, false, err
	}
	return (*dest)[0].ListTotal, true, nil
}

// chargeListWhere is the listing's condition on dunning_charges c and its
// arguments, the organization's id first.
func chargeListWhere(orgID string, f chargeListFilter) (string, []any) {
	where := []string{"c.organization_id = ?"}
	args := []any{orgID}
	if f.Archived {
		where = append(where, "c.archived_at IS NOT NULL")
	} else {
		where = append(where, "c.archived_at IS NULL")
	}
	if len(f.Statuses) > 0 {
		where = append(where, "c.status IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(f.Statuses)), ", ")+")")
		for _, st := range f.Statuses {
			args = append(args, st)
		}
	}
	if f.DebtorRef != "" {
		where = append(where, "c.debtor_id IN (SELECT id FROM dunning_debtors WHERE organization_id = ? AND (id = ? OR external_id = ?))")
		args = append(args, orgID, f.DebtorRef, f.DebtorRef)
	}
	if f.DueFrom != "" {
		where = append(where, "c.due_date >= ?")
		args = append(args, f.DueFrom)
	}
	if f.DueTo != "" {
		where = append(where, "c.due_date <= ?")
		args = append(args, f.DueTo)
	}
	if f.PlanRef != "" {
		where = append(where, `EXISTS (SELECT 1 FROM dunning_enrollments e WHERE e.charge_id = c.id AND e.organization_id = ?
			AND e.plan_id IN (SELECT id FROM dunning_plans WHERE organization_id = ? AND (id = ? OR external_id = ?)))`)
		args = append(args, orgID, orgID, f.PlanRef, f.PlanRef)
	}
	if f.Q != "" {
		p := LikeContains(strings.ToLower(f.Q))
		where = append(where, `(LOWER(c.description) LIKE ? ESCAPE '\' OR LOWER(COALESCE(c.external_id, '')) LIKE ? ESCAPE '\'
			OR c.debtor_id IN (SELECT id FROM dunning_debtors WHERE organization_id = ? AND LOWER(name) LIKE ? ESCAPE '\'))`)
		args = append(args, p, p, orgID, p)
	}
	return strings.Join(where, " AND "), args
}

// GetCharge loads a charge of the organization by id or external_id (an
// id match wins). Another organization's charge is store.ErrNotFound, as
// a missing one.
func GetCharge(ctx context.Context, q store.Querier, orgID, idOrExternal string) (Charge, error) {
	return GetChargeWhere(ctx, q, `organization_id = ? AND (id = ? OR external_id = ?)
		ORDER BY CASE WHEN id = ? THEN 0 ELSE 1 END LIMIT 1`, orgID, idOrExternal, idOrExternal, idOrExternal)
}

// ChargeSelect reads charges with their debtor's kind as it is now
// (Charge.DebtorKind), which the caps need at computation time; a
// condition on unqualified columns follows it.
const ChargeSelect = `SELECT dunning_charges.*, (SELECT d.person_kind FROM dunning_debtors d WHERE d.id = dunning_charges.debtor_id) AS debtor_person_kind
	FROM dunning_charges`

// GetChargeWhere loads the first charge matching where (a condition with
// ? placeholders, optionally followed by ORDER BY, LIMIT or FOR UPDATE).
func GetChargeWhere(ctx context.Context, q store.Querier, where string, args ...any) (Charge, error) {
	var c Charge
	if err := q.Get(ctx, &c, ChargeSelect+` WHERE `+where, args...); err != nil {
		return Charge{}, err
	}
	return c, c.Decode()
}

// ChargePayments are a charge's payments, oldest first.
func ChargePayments(ctx context.Context, q store.Querier, orgID, chargeID string) ([]Payment, error) {
	out := []Payment{}
	err := q.Select(ctx, &out, `SELECT * FROM dunning_payments WHERE organization_id = ? AND charge_id = ? ORDER BY paid_at, id`, orgID, chargeID)
	return out, err
}

// LockCharge is getCharge that also locks the row until tx ends.
func LockCharge(ctx context.Context, tx *store.Tx, orgID, idOrExternal string) (Charge, error) {
	c, err := GetCharge(ctx, tx, orgID, idOrExternal)
	if err != nil || tx.Dialect() != store.Postgres {
		return c, err
	}
	return GetChargeWhere(ctx, tx, `id = ? AND organization_id = ? FOR UPDATE`, c.ID, orgID)
}

// chargeEnrollmentRow is one enrollment of a charge in a collection plan,
// as a charge's detail shows it (dunning_enrollments).
type chargeEnrollmentRow struct {
	ID            string     `db:"id" json:"id"`
	PlanID        string     `db:"plan_id" json:"plan_id"`
	PlanName      string     `db:"plan_name" json:"plan_name"`
	Status        string     `db:"status" json:"status"`
	NextStepID    *string    `db:"next_step_id" json:"next_step_id"`
	NextRunAt     *time.Time `db:"next_run_at" json:"next_run_at"`
	StartedAt     time.Time  `db:"started_at" json:"started_at"`
	StoppedAt     *time.Time `db:"stopped_at" json:"stopped_at"`
	StoppedReason *string    `db:"stopped_reason" json:"stopped_reason"`
}

// chargeNotificationRow is one of the last messages about a charge
// (dunning_notifications), without its body: the notification log has it.
type chargeNotificationRow struct {
	ID        string     `db:"id" json:"id"`
	Kind      string     `db:"kind" json:"kind"`
	Channel   string     `db:"channel" json:"channel"`
	ToAddress string     `db:"to_address" json:"to"`
	Subject   *string    `db:"subject" json:"subject"`
	Status    string     `db:"status" json:"status"`
	SentAt    *time.Time `db:"sent_at" json:"sent_at"`
	CreatedAt time.Time  `db:"created_at" json:"created_at"`
}

// lastNotifications is how many of a charge's messages its detail shows.
const lastNotifications = 10

// chargeEnrollments are a charge's enrollments in collection plans, with
// each plan's name, oldest first (its detail, dunning_charges_get).
func chargeEnrollments(ctx context.Context, q store.Querier, orgID, chargeID string) ([]chargeEnrollmentRow, error) {
	out := []chargeEnrollmentRow{}
	err := q.Select(ctx, &out, `SELECT e.id, e.plan_id, p.name AS plan_name, e.status, e.next_step_id, e.next_run_at, e.started_at, e.stopped_at, e.stopped_reason
		FROM dunning_enrollments e JOIN dunning_plans p ON p.id = e.plan_id
		WHERE e.organization_id = ? AND e.charge_id = ? ORDER BY e.started_at, e.id`, orgID, chargeID)
	return out, err
}

// lastChargeNotifications are the lastNotifications newest messages about
// a charge, without their bodies (its detail, dunning_charges_get).
func lastChargeNotifications(ctx context.Context, q store.Querier, orgID, chargeID string) ([]chargeNotificationRow, error) {
	out := []chargeNotificationRow{}
	err := q.Select(ctx, &out, `SELECT id, kind, channel, to_address, subject, status, sent_at, created_at FROM dunning_notifications
		WHERE organization_id = ? AND charge_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`, orgID, chargeID, lastNotifications)
	return out, err
}

// chargeByExternal loads the organization's charge with externalID
// (store.ErrNotFound when none has it): a new charge's external_id must be
// free.
func chargeByExternal(ctx context.Context, q store.Querier, orgID, externalID string) (Charge, error) {
	return GetChargeWhere(ctx, q, `organization_id = ? AND external_id = ?`, orgID, externalID)
}

// chargeByID loads the organization's charge by id only, as a write just
// stored it.
func chargeByID(ctx context.Context, q store.Querier, orgID, id string) (Charge, error) {
	return GetChargeWhere(ctx, q, `id = ? AND organization_id = ?`, id, orgID)
}

// newChargeRow is what a new charge is stored with (createCharge); the
// rest of its columns start at their defaults.
type newChargeRow struct {
	ID, OrganizationID, DebtorID string
	ExternalID                   *string
	Amount                       money.Cents
	DueDate                      bankcalendar.Date
	Description                  string
	Fine, Interest               latefee.Percent
	Origin                       string
	OriginRef, Barcode, Link     *string
	TagsJSON, CustomDataJSON     string
	Status                       lifecycle.ChargeStatus
	OverdueAt                    *time.Time
	At                           time.Time
}

// insertCharge adds a new charge, its open amount all of its amount, and
// counts it in the listing's counters (SyncChargeCount).
func insertCharge(ctx context.Context, tx *store.Tx, r newChargeRow) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_charges (id, organization_id, debtor_id, external_id, amount_cents, open_amount_cents, due_date,
			description, fine, interest, origin, origin_ref, barcode, payment_link, tags, custom_data, status, overdue_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.OrganizationID, r.DebtorID, r.ExternalID, int64(r.Amount), int64(r.Amount), r.DueDate.String(), r.Description, int64(r.Fine), int64(r.Interest),
		r.Origin, r.OriginRef, r.Barcode, r.Link, r.TagsJSON, r.CustomDataJSON, string(r.Status), r.OverdueAt, r.At, r.At)
	if err != nil {
		return err
	}
	return SyncChargeCount(ctx, tx, r.ID)
}

// openChargesOfDebtor are a debtor's open charges (pending or overdue, not
// archived), by due date, with the debtor's kind as it is now.
func openChargesOfDebtor(ctx context.Context, q store.Querier, orgID, debtorID string) ([]Charge, error) {
	var rows []Charge
	err := q.Select(ctx, &rows, ChargeSelect+` WHERE organization_id = ? AND debtor_id = ? AND archived_at IS NULL AND status IN (?, ?) ORDER BY due_date, id`,
		orgID, debtorID, string(lifecycle.ChargePending), string(lifecycle.ChargeOverdue))
	return rows, err
}

// insertPayment records a payment against its charge, with how it was
// imputed; the charge itself changes through the ledger (ApplyCharge).
func insertPayment(ctx context.Context, tx *store.Tx, pay Payment) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_payments (id, organization_id, charge_id, amount_cents, paid_at, method, reference, created_by, created_at,
			applied_interest_cents, applied_fine_cents, applied_principal_cents)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, pay.ID, pay.OrganizationID, pay.ChargeID, int64(pay.Amount), pay.PaidAt, pay.Method,
		pay.Reference, pay.CreatedBy, pay.CreatedAt, int64(pay.AppliedInterest), int64(pay.AppliedFine), int64(pay.AppliedPrincipal))
	return err
}

// waiverRow is a row of dunning_charge_waivers: fine and interest
// forgiven on a charge, by whom, when and why.
type waiverRow struct {
	ID, OrganizationID, ChargeID string
	Fine, Interest               money.Cents
	Reason, CreatedBy            string
	CreatedAt                    time.Time
}

// insertWaiver records a waiver; the charge itself changes through the
// ledger (ApplyCharge).
func insertWaiver(ctx context.Context, tx *store.Tx, w waiverRow) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_charge_waivers (id, organization_id, charge_id, fine_cents, interest_cents, reason, created_by, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, w.ID, w.OrganizationID, w.ChargeID, int64(w.Fine), int64(w.Interest), w.Reason, w.CreatedBy, w.CreatedAt)
	return err
}
