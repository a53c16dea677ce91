package ledger

import (
	"context"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The numbered listings' totals at any size (docs/decisions.md, "Listings
// at scale"): dunning_charge_counts and dunning_debtor_counts
// (00270_dunning_listing_counts.sql) count the rows per organization and
// key, and change in the transaction of every write that creates a row or
// changes its key. A total over the whole list or over statuses is a sum
// of a few counter rows; one with another filter (a debtor, dates, a plan,
// a text) counts the matching rows, bounded by how many match.

// chargeKey is what a charge is counted as.
type chargeKey struct {
	archived int
	status   string
}

// SyncChargeCount moves charge id from the key it is counted as to the
// one it has now, in q (the transaction that just inserted it or changed
// its status or archiving, so the row is locked by that write until the
// commit and no other writer can move it meanwhile). Nothing happens when
// the key is unchanged. Every write of dunning_charges' status or
// archived_at calls it; TestListingCountsMatch checks the counters against
// COUNT(*) after each kind of write.
func SyncChargeCount(ctx context.Context, q store.Querier, id string) error {
	var r struct {
		Org             string  `db:"organization_id"`
		Status          string  `db:"status"`
		Archived        int     `db:"archived"`
		Cents           int64   `db:"open_amount_cents"`
		CountedStatus   *string `db:"counted_status"`
		CountedArchived *int    `db:"counted_archived"`
		CountedCents    *int64  `db:"counted_cents"`
	}
	if err := q.Get(ctx, &r, `SELECT organization_id, status, CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END AS archived, open_amount_cents,
		counted_status, counted_archived, counted_cents FROM dunning_charges WHERE id = ?`, id); err != nil {
		return fmt.Errorf("dunning: count charge %s: %w", id, err)
	}
	now := chargeKey{r.Archived, r.Status}
	var was *chargeKey
	var wasCents int64
	if r.CountedCents != nil {
		wasCents = *r.CountedCents
	}
	if r.CountedStatus != nil && r.CountedArchived != nil {
		was = &chargeKey{*r.CountedArchived, *r.CountedStatus}
		if *was == now {
			// The key stays: its amount moves by the difference, and the
			// listings' version moves (00296, 00297).
			if _, err := q.Exec(ctx, `UPDATE dunning_charge_counts SET v = v + 1, cents = cents + ? WHERE organization_id = ? AND archived = ? AND status = ?`,
				r.Cents-wasCents, r.Org, now.archived, now.status); err != nil || r.Cents == wasCents {
				return err
			}
			_, err := q.Exec(ctx, `UPDATE dunning_charges SET counted_cents = ? WHERE id = ?`, r.Cents, id)
			return err
		}
	}
	// The two counter rows in one order (archived, status), so two
	// transactions moving charges between the same keys lock them in the
	// same order. Each adds one to its v, the listings' version.
	type move struct {
		k     chargeKey
		d     int
		cents int64
	}
	moves := []move{{now, 1, r.Cents}}
	if was != nil {
		moves = append(moves, move{*was, -1, -wasCents})
		if was.archived < now.archived || (was.archived == now.archived && was.status < now.status) {
			moves[0], moves[1] = moves[1], moves[0]
		}
	}
	for _, m := range moves {
		if _, err := q.Exec(ctx, `INSERT INTO dunning_charge_counts (organization_id, archived, status, n, v, cents) VALUES (?, ?, ?, ?, 1, ?)
			ON CONFLICT (organization_id, archived, status) DO UPDATE SET n = dunning_charge_counts.n + excluded.n, v = dunning_charge_counts.v + 1,
				cents = dunning_charge_counts.cents + excluded.cents`,
			r.Org, m.k.archived, m.k.status, m.d, m.cents); err != nil {
			return fmt.Errorf("dunning: count charge %s: %w", id, err)
		}
	}
	_, err := q.Exec(ctx, `UPDATE dunning_charges SET counted_status = ?, counted_archived = ?, counted_cents = ? WHERE id = ?`, now.status, now.archived, r.Cents, id)
	return err
}

// SyncDebtorCount is syncChargeCount for a debtor (its status).
func SyncDebtorCount(ctx context.Context, q store.Querier, id string) error {
	var r struct {
		Org           string  `db:"organization_id"`
		Status        string  `db:"status"`
		CountedStatus *string `db:"counted_status"`
	}
	if err := q.Get(ctx, &r, `SELECT organization_id, status, counted_status FROM dunning_debtors WHERE id = ?`, id); err != nil {
		return fmt.Errorf("dunning: count debtor %s: %w", id, err)
	}
	if r.CountedStatus != nil && *r.CountedStatus == r.Status {
		// The key stays; the listings' version still moves (00296).
		_, err := q.Exec(ctx, `UPDATE dunning_debtor_counts SET v = v + 1 WHERE organization_id = ? AND status = ?`, r.Org, r.Status)
		return err
	}
	type move struct {
		status string
		d      int
	}
	moves := []move{{r.Status, 1}}
	if r.CountedStatus != nil {
		moves = append(moves, move{*r.CountedStatus, -1})
		if *r.CountedStatus < r.Status {
			moves[0], moves[1] = moves[1], moves[0]
		}
	}
	for _, m := range moves {
		if _, err := q.Exec(ctx, `INSERT INTO dunning_debtor_counts (organization_id, status, n, v) VALUES (?, ?, ?, 1)
			ON CONFLICT (organization_id, status) DO UPDATE SET n = dunning_debtor_counts.n + excluded.n, v = dunning_debtor_counts.v + 1`, r.Org, m.status, m.d); err != nil {
			return fmt.Errorf("dunning: count debtor %s: %w", id, err)
		}
	}
	_, err := q.Exec(ctx, `UPDATE dunning_debtors SET counted_status = ? WHERE id = ?`, r.Status, id)
	return err
}

// RecountOrganization rebuilds an organization's counters from its rows,
// for rows written without syncChargeCount or syncDebtorCount (a bulk
// load by SQL, the benchmarks' seeding); run it in one transaction. The
// counter rows are zeroed, not deleted, and every v grows by one (a new
// row starts at one), so the listings' version moves past every page
// mark read before (00296).
func RecountOrganization(ctx context.Context, q store.Querier, orgID string) error {
	for _, stmt := range []string{
		`UPDATE dunning_charges SET counted_status = status, counted_archived = CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END,
			counted_cents = open_amount_cents WHERE organization_id = ?`,
		`UPDATE dunning_debtors SET counted_status = status WHERE organization_id = ?`,
		`UPDATE dunning_charge_counts SET n = 0, cents = 0, v = v + 1 WHERE organization_id = ?`,
		`UPDATE dunning_debtor_counts SET n = 0, v = v + 1 WHERE organization_id = ?`,
		`INSERT INTO dunning_charge_counts (organization_id, archived, status, n, v, cents)
			SELECT organization_id, counted_archived, counted_status, COUNT(*), 1, SUM(counted_cents) FROM dunning_charges WHERE organization_id = ?
			GROUP BY organization_id, counted_archived, counted_status
			ON CONFLICT (organization_id, archived, status) DO UPDATE SET n = excluded.n, cents = excluded.cents`,
		`INSERT INTO dunning_debtor_counts (organization_id, status, n, v)
			SELECT organization_id, counted_status, COUNT(*), 1 FROM dunning_debtors WHERE organization_id = ? GROUP BY organization_id, counted_status
			ON CONFLICT (organization_id, status) DO UPDATE SET n = excluded.n`,
	} {
		if _, err := q.Exec(ctx, stmt, orgID); err != nil {
			return fmt.Errorf("dunning: recount: %w", err)
		}
	}
	return nil
}

// chargeTotal is the counters' number of the organization's charges,
// archived or not, in statuses (every status when empty).
func chargeTotal(ctx context.Context, q store.Querier, orgID string, archived bool, statuses []string) (int, error) {
	query, args := chargeTotalSQL(orgID, archived, statuses)
	var n int
	err := q.Get(ctx, &n, `SELECT `+query, args...)
	return n, err
}

// chargeTotalSQL is chargeTotal's scalar subquery, in parentheses, and
// its arguments: a page of the first rows reads it as a column
// (listCharges).
func chargeTotalSQL(orgID string, archived bool, statuses []string) (string, []any) {
	query := `(SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM dunning_charge_counts WHERE organization_id = ? AND archived = ?`
	a := 0
	if archived {
		a = 1
	}
	args := make([]any, 0, 2+len(statuses))
	args = append(args, orgID, a)
	if len(statuses) > 0 {
		query += ` AND status IN (?` + strings.Repeat(", ?", len(statuses)-1) + `)`
		for _, s := range statuses {
			args = append(args, s)
		}
	}
	return query + `)`, args
}

// debtorTotal is the counter's number of the organization's debtors in
// status.
func debtorTotal(ctx context.Context, q store.Querier, orgID, status string) (int, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM dunning_debtor_counts WHERE organization_id = ? AND status = ?`, orgID, status)
	return n, err
}

// countsJSON are the organization's figures dunning_me shows: charges
// that are open (pending or overdue, not archived) and what they still
// owe.
type countsJSON struct {
	Debtors        int         `json:"debtors"`
	OpenCharges    int         `json:"open_charges"`
	OpenAmount     money.Cents `json:"open_amount"`
	OverdueCharges int         `json:"overdue_charges"`
	OverdueAmount  money.Cents `json:"overdue_amount"`
}

// organizationCounts reads the figures from the counters (00270, 00297):
// a few rows whatever the organization's size.
func organizationCounts(ctx context.Context, q store.Querier, orgID string) (countsJSON, error) {
	ctx = store.ShortRead(ctx)
	var c countsJSON
	var err error
	if c.Debtors, err = debtorTotal(ctx, q, orgID, DebtorActive); err != nil {
		return c, err
	}
	var row struct {
		Open        int   `db:"open_n"`
		OpenCents   int64 `db:"open_cents"`
		Overdue     int   `db:"overdue_n"`
		OverdueCent int64 `db:"overdue_cents"`
	}
	err = q.Get(ctx, &row, `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) AS open_n, CAST(COALESCE(SUM(cents), 0) AS BIGINT) AS open_cents,
		CAST(COALESCE(SUM(CASE WHEN status = 'overdue' THEN n ELSE 0 END), 0) AS BIGINT) AS overdue_n,
		CAST(COALESCE(SUM(CASE WHEN status = 'overdue' THEN cents ELSE 0 END), 0) AS BIGINT) AS overdue_cents
		FROM dunning_charge_counts WHERE organization_id = ? AND archived = 0 AND status IN ('pending', 'overdue')`, orgID)
	c.OpenCharges, c.OpenAmount, c.OverdueCharges, c.OverdueAmount = row.Open, money.Cents(row.OpenCents), row.Overdue, money.Cents(row.OverdueCent)
	return c, err
}

// MiscountedCharges and MiscountedDebtors are the count mender's
// conditions (count_mender.go), word for word the predicates of the
// partial indexes of 00275: a planner uses a partial index when the query
// names its condition.
const (
	MiscountedCharges = `counted_status IS NULL OR counted_status <> status OR counted_archived IS NULL
        OR counted_archived <> CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END`
	MiscountedDebtors = `counted_status IS NULL OR counted_status <> status`
)

// miscountedIDs are up to limit ids of table's rows matching where (one of
// the Miscounted conditions), in id order: one read of the count mender.
func miscountedIDs(ctx context.Context, q store.Querier, table, where string, limit int) ([]string, error) {
	var ids []string
	err := q.Select(ctx, &ids, `SELECT id FROM `+table+` WHERE `+where+` ORDER BY id LIMIT ?`, limit)
	return ids, err
}

// lockCountedRow locks row id of table (dunning_charges or
// dunning_debtors) with a write that changes nothing, so the sync that
// follows in tx reads it as no other writer can change it.
func lockCountedRow(ctx context.Context, tx *store.Tx, table, id string) error {
	_, err := tx.Exec(ctx, `UPDATE `+table+` SET counted_status = counted_status WHERE id = ?`, id)
	return err
}
