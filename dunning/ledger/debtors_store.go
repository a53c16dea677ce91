package ledger

import (
	"context"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
)

// debtorOwed is what a debtor owes over its open charges (pending or
// overdue, not archived): how many, their open amount, and the overdue
// part of it.
type debtorOwed struct {
	DebtorID string `db:"debtor_id"`
	N        int    `db:"n"`
	Open     int64  `db:"open_cents"`
	Overdue  int64  `db:"overdue_cents"`
}

// debtorOwedColumns sums a debtor's open charges into debtorOwed.
const debtorOwedColumns = `COUNT(*) AS n, CAST(COALESCE(SUM(open_amount_cents), 0) AS BIGINT) AS open_cents,
	CAST(COALESCE(SUM(CASE WHEN status = 'overdue' THEN open_amount_cents ELSE 0 END), 0) AS BIGINT) AS overdue_cents`

// owedByDebtor reads what one debtor owes.
func owedByDebtor(ctx context.Context, q store.Querier, orgID, debtorID string) (debtorOwed, error) {
	var row debtorOwed
	err := q.Get(ctx, &row, `SELECT `+debtorOwedColumns+`
		FROM dunning_charges WHERE organization_id = ? AND debtor_id = ? AND status IN ('pending', 'overdue') AND archived_at IS NULL`,
		orgID, debtorID)
	row.DebtorID = debtorID
	return row, err
}

// owedByDebtors reads what each of a page of debtors owes, in one query; a
// debtor with no open charge has no row.
func owedByDebtors(ctx context.Context, q store.Querier, orgID string, debtorIDs []string) ([]debtorOwed, error) {
	marks, args := inList(orgID, debtorIDs)
	var sums []debtorOwed
	err := q.Select(ctx, &sums, `SELECT debtor_id, `+debtorOwedColumns+`
		FROM dunning_charges WHERE organization_id = ? AND debtor_id IN (`+marks+`) AND status IN ('pending', 'overdue') AND archived_at IS NULL
		GROUP BY debtor_id`, args...)
	return sums, err
}

// optOutsOfDebtors reads the opt-outs of a page of debtors, in one query.
func optOutsOfDebtors(ctx context.Context, q store.Querier, orgID string, debtorIDs []string) ([]OptOut, error) {
	marks, args := inList(orgID, debtorIDs)
	var opts []OptOut
	err := q.Select(ctx, &opts, `SELECT * FROM dunning_opt_outs WHERE organization_id = ? AND debtor_id IN (`+marks+`) ORDER BY channel`, args...)
	return opts, err
}

// debtorListFilter is a listing of debtors: a status, optional text and
// document filters, an order and a numbered page.
type debtorListFilter struct {
	Status, Q, Document string
	Order, Dir          string
	Limit, Offset       int
}

// debtorSortColumns are the columns dunning_debtors_list sorts by, by its
// sort_by ("" is the default, name).
var debtorSortColumns = map[string]string{"": "name", "name": "name", "created_at": "created_at", "updated_at": "updated_at"}

// listDebtors reads a page of the organization's debtors and how many
// match in all. Filtered by status alone, the total is the counter's
// (docs/decisions.md, "Listings at scale").
func listDebtors(ctx context.Context, q store.Querier, orgID string, f debtorListFilter) ([]Debtor, int, error) {
	where := []string{"organization_id = ?", "status = ?"}
	args := []any{orgID, f.Status}
	if f.Q != "" {
		cond := `(LOWER(name) LIKE ? ESCAPE '\' OR LOWER(emails) LIKE ? ESCAPE '\'`
		args = append(args, LikeContains(strings.ToLower(f.Q)), LikeContains(strings.ToLower(f.Q)))
		if digits := brazil.NormalizeDocument(f.Q); digits != "" {
			cond += ` OR document LIKE ? ESCAPE '\'`
			args = append(args, LikeContains(digits))
		}
		where = append(where, cond+")")
	}
	if f.Document != "" {
		where = append(where, "document = ?")
		args = append(args, f.Document)
	}
	cond := strings.Join(where, " AND ")
	rows := []Debtor{}
	if len(where) == 2 {
		total, err := debtorTotal(store.ShortRead(ctx), q, orgID, f.Status)
		if err != nil {
			return nil, 0, err
		}
		// Pages the counter totals seek under a remembered mark (page_marks.go).
		l := markedList{table: "dunning_debtors", alias: "t", columns: "*", cond: cond, args: args, order: f.Order, dir: f.Dir,
			counters: "dunning_debtor_counts", key: listKey("debtors", f.Status, f.Order, f.Dir)}
		err = readMarkedPage(ctx, q, l, f.Limit, f.Offset, total, &rows)
		return rows, total, err
	}
	total, err := readNumberedPage(ctx, q, &rows, `SELECT * FROM dunning_debtors WHERE `+cond+` ORDER BY `+f.Order+` `+f.Dir+`, id `+f.Dir+` LIMIT ? OFFSET ?`,
		`SELECT COUNT(*) FROM dunning_debtors WHERE `+cond, args, f.Limit, f.Offset)
	return rows, total, err
}

// insertDebtor adds an active debtor with id and keeps the organization's
// debtor counter in step.
func insertDebtor(ctx context.Context, tx *store.Tx, orgID, id, externalID string, v debtorInput, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind, emails, phones, address, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)`, id, orgID, externalID, v.name, v.document, v.personKind,
		MustJSON(v.emails), MustJSON(v.phones), AddressJSON(v.address), now, now)
	if err != nil {
		return err
	}
	return SyncDebtorCount(ctx, tx, id)
}

// replaceDebtor sets every field of a debtor and makes it active again
// (an upsert of an archived debtor revives it), keeping the counter in
// step.
func replaceDebtor(ctx context.Context, tx *store.Tx, orgID, id string, v debtorInput, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_debtors SET name = ?, document = ?, person_kind = ?, emails = ?, phones = ?, address = ?,
		status = 'active', archived_at = NULL, updated_at = ? WHERE id = ? AND organization_id = ?`,
		v.name, v.document, v.personKind, MustJSON(v.emails), MustJSON(v.phones), AddressJSON(v.address), now, id, orgID)
	if err != nil {
		return err
	}
	return SyncDebtorCount(ctx, tx, id)
}

// updateDebtor sets a debtor's fields and leaves its status alone; the
// listings' version moves (SyncDebtorCount).
func updateDebtor(ctx context.Context, q store.Querier, orgID, id string, v debtorInput, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE dunning_debtors SET name = ?, document = ?, person_kind = ?, emails = ?, phones = ?, address = ?, updated_at = ?
		WHERE id = ? AND organization_id = ?`, v.name, v.document, v.personKind, MustJSON(v.emails), MustJSON(v.phones), AddressJSON(v.address),
		now, id, orgID)
	if err != nil {
		return err
	}
	// The name and updated_at order the listing: its version moves.
	return SyncDebtorCount(ctx, q, id)
}

// countUnsettledCharges counts a debtor's charges that still keep it from
// being archived: pending, overdue or in an agreement, not archived.
func countUnsettledCharges(ctx context.Context, q store.Querier, orgID, debtorID string) (int, error) {
	var open int
	err := q.Get(ctx, &open, `SELECT COUNT(*) FROM dunning_charges WHERE organization_id = ? AND debtor_id = ?
		AND status IN ('pending', 'overdue', 'in_agreement') AND archived_at IS NULL`, orgID, debtorID)
	return open, err
}

// archiveDebtor archives a debtor and keeps the counter in step.
func archiveDebtor(ctx context.Context, tx *store.Tx, orgID, id string, now time.Time) error {
	if _, err := tx.Exec(ctx, `UPDATE dunning_debtors SET status = 'archived', archived_at = ?, updated_at = ? WHERE id = ? AND organization_id = ?`,
		now, now, id, orgID); err != nil {
		return err
	}
	return SyncDebtorCount(ctx, tx, id)
}

// setOptOut records inside q that a debtor is not to be contacted on
// channel: why (reason), who said so (source: "debtor" for an unsubscribe
// link or a STOP reply, else the user who recorded it) and when (at). An
// opt-out already recorded keeps its first when and takes the new reason
// and source. The notifications' unsubscribe link uses it too.
func setOptOut(ctx context.Context, q store.Querier, orgID, debtorID, channel, reason, source string, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_opt_outs (debtor_id, organization_id, channel, reason, source, created_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (debtor_id, channel) DO UPDATE SET reason = excluded.reason, source = excluded.source`,
		debtorID, orgID, channel, reason, source, at.UTC().Truncate(time.Microsecond))
	return err
}

// deleteOptOut removes a debtor's opt-out of channel, if it has one.
func deleteOptOut(ctx context.Context, q store.Querier, orgID, debtorID, channel string) error {
	_, err := q.Exec(ctx, `DELETE FROM dunning_opt_outs WHERE organization_id = ? AND debtor_id = ? AND channel = ?`, orgID, debtorID, channel)
	return err
}

// getDebtorByExternal loads a debtor by external_id only (an upsert must
// not replace a debtor whose id happens to equal the external_id asked
// for), locking it when lock is set.
func getDebtorByExternal(ctx context.Context, q store.Querier, orgID, externalID string, lock bool) (Debtor, error) {
	var d Debtor
	query := `SELECT * FROM dunning_debtors WHERE organization_id = ? AND external_id = ?`
	if lock {
		query += ForUpdate(q)
	}
	if err := q.Get(ctx, &d, query, orgID, externalID); err != nil {
		return Debtor{}, err
	}
	if err := d.Decode(); err != nil {
		return Debtor{}, err
	}
	var err error
	d.OptOuts, err = debtorOptOuts(ctx, q, orgID, d.ID)
	return d, err
}

// lockDebtor is getDebtor that also locks the row until tx ends.
func lockDebtor(ctx context.Context, tx *store.Tx, orgID, idOrExternal string) (Debtor, error) {
	d, err := GetDebtor(ctx, tx, orgID, idOrExternal)
	if err != nil {
		return Debtor{}, err
	}
	if tx.Dialect() == store.Postgres {
		var id string
		if err := tx.Get(ctx, &id, `SELECT id FROM dunning_debtors WHERE id = ? FOR UPDATE`, d.ID); err != nil {
			return Debtor{}, err
		}
		return GetDebtor(ctx, tx, orgID, d.ID)
	}
	return d, nil
}

// GetDebtor loads a debtor of the organization by id or external_id
// (an id match wins), with its opt-outs. Another organization's debtor is
// store.ErrNotFound, as a missing one.
func GetDebtor(ctx context.Context, q store.Querier, orgID, idOrExternal string) (Debtor, error) {
	var d Debtor
	err := q.Get(ctx, &d, `SELECT * FROM dunning_debtors WHERE organization_id = ? AND (id = ? OR external_id = ?)
		ORDER BY CASE WHEN id = ? THEN 0 ELSE 1 END LIMIT 1`, orgID, idOrExternal, idOrExternal, idOrExternal)
	if err != nil {
		return Debtor{}, err
	}
	if err := d.Decode(); err != nil {
		return Debtor{}, err
	}
	d.OptOuts, err = debtorOptOuts(ctx, q, orgID, d.ID)
	return d, err
}

// debtorOptOuts are a debtor's opt-outs in channel order.
func debtorOptOuts(ctx context.Context, q store.Querier, orgID, debtorID string) ([]OptOut, error) {
	out := []OptOut{}
	err := q.Select(ctx, &out, `SELECT * FROM dunning_opt_outs WHERE organization_id = ? AND debtor_id = ? ORDER BY channel`, orgID, debtorID)
	return out, err
}

// debtorInput is a debtor's fields checked and normalised: the document
// digits only, e-mails lower-cased in their domain, phones in E.164.
type debtorInput struct {
	name, document, personKind string
	emails, phones             []string
	address                    *Address
}

// AddressJSON is a debtor's address as dunning_debtors.address keeps it:
// NULL for none.
func AddressJSON(a *Address) *string {
	if a == nil {
		return nil
	}
	s := MustJSON(a)
	return &s
}
