package ledger

import (
	"context"
	"errors"
	"time"

	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of the Pix webhook and of the Pix it received (migration 00294).

// pixWebhookRow is an organization's Pix webhook (dunning_pix_webhooks).
type pixWebhookRow struct {
	OrganizationID     string     `db:"organization_id"`
	ID                 string     `db:"id"`
	SecretSHA256       string     `db:"secret_sha256"`
	PreviousSHA256     *string    `db:"previous_sha256"`
	PreviousValidUntil *time.Time `db:"previous_valid_until"`
	CreatedAt          time.Time  `db:"created_at"`
	RotatedAt          time.Time  `db:"rotated_at"`
	RotatedBy          string     `db:"rotated_by"`
}

// pixWebhookByID is the webhook whose URL carries id; store.ErrNotFound
// when there is none.
func pixWebhookByID(ctx context.Context, q store.Querier, id string) (pixWebhookRow, error) {
	var w pixWebhookRow
	err := q.Get(ctx, &w, `SELECT * FROM dunning_pix_webhooks WHERE id = ?`, id)
	return w, err
}

// pixWebhookOf is the organization's webhook; store.ErrNotFound when it
// has none yet.
func pixWebhookOf(ctx context.Context, q store.Querier, orgID string) (pixWebhookRow, error) {
	var w pixWebhookRow
	err := q.Get(ctx, &w, `SELECT * FROM dunning_pix_webhooks WHERE organization_id = ?`, orgID)
	return w, err
}

// savePixWebhook writes the organization's webhook (one per organization).
func savePixWebhook(ctx context.Context, tx *store.Tx, w pixWebhookRow) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_pix_webhooks (organization_id, id, secret_sha256, previous_sha256, previous_valid_until, created_at, rotated_at, rotated_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET secret_sha256 = excluded.secret_sha256, previous_sha256 = excluded.previous_sha256,
			previous_valid_until = excluded.previous_valid_until, rotated_at = excluded.rotated_at, rotated_by = excluded.rotated_by`,
		w.OrganizationID, w.ID, w.SecretSHA256, w.PreviousSHA256, w.PreviousValidUntil, w.CreatedAt, w.RotatedAt, w.RotatedBy)
	return err
}

// The statuses of a Pix received.
const (
	// PixReconciled: wholly recorded as a payment of its charge.
	PixReconciled = "reconciled"
	// PixUnmatched: nothing recorded; all of it waits for a person.
	PixUnmatched = "unmatched"
	// PixExcess: the charge's updated amount recorded, the rest waits.
	PixExcess = "excess"
	// PixAssigned: what waited was assigned by a person.
	PixAssigned = "assigned"
	// PixDismissed: what waited was dismissed by a person (refunded
	// outside, not the creditor's).
	PixDismissed = "dismissed"
)

// pixReceivedRow is one Pix the PSP reported (dunning_pix_received).
type pixReceivedRow struct {
	ID             string      `db:"id"`
	OrganizationID string      `db:"organization_id"`
	EndToEndID     string      `db:"end_to_end_id"`
	TxID           string      `db:"txid"`
	Amount         money.Cents `db:"amount_cents"`
	PaidAt         time.Time   `db:"paid_at"`
	PayerNote      string      `db:"payer_note"`
	ReceivedVia    string      `db:"received_via"`
	ChargeID       *string     `db:"charge_id"`
	Applied        money.Cents `db:"applied_cents"`
	Unassigned     money.Cents `db:"unassigned_cents"`
	Dismissed      money.Cents `db:"dismissed_cents"`
	Status         string      `db:"status"`
	Reason         string      `db:"reason"`
	ResolvedBy     *string     `db:"resolved_by"`
	ResolvedAt     *time.Time  `db:"resolved_at"`
	Note           *string     `db:"note"`
	ReceivedAt     time.Time   `db:"received_at"`
}

// insertPixReceived keeps p unless the organization already has a Pix of
// its endToEndId: inserted is false then, and nothing was written. The
// UNIQUE (organization_id, end_to_end_id) constraint decides, so replicas
// receiving the same retry at once keep exactly one.
func insertPixReceived(ctx context.Context, tx *store.Tx, p pixReceivedRow) (inserted bool, err error) {
	res, err := tx.Exec(ctx, `INSERT INTO dunning_pix_received (id, organization_id, end_to_end_id, txid, amount_cents, paid_at, payer_note, received_via,
			charge_id, applied_cents, unassigned_cents, dismissed_cents, status, reason, received_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, end_to_end_id) DO NOTHING`,
		p.ID, p.OrganizationID, p.EndToEndID, p.TxID, int64(p.Amount), p.PaidAt, p.PayerNote, p.ReceivedVia,
		p.ChargeID, int64(p.Applied), int64(p.Unassigned), int64(p.Dismissed), p.Status, p.Reason, p.ReceivedAt)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// settlePixReceived writes what matching a kept Pix found.
func settlePixReceived(ctx context.Context, tx *store.Tx, p pixReceivedRow) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_pix_received SET charge_id = ?, applied_cents = ?, unassigned_cents = ?, status = ?, reason = ?
		WHERE id = ? AND organization_id = ?`, p.ChargeID, int64(p.Applied), int64(p.Unassigned), p.Status, p.Reason, p.ID, p.OrganizationID)
	return err
}

// getPixReceived is one of the organization's Pix; store.ErrNotFound for
// another organization's.
func getPixReceived(ctx context.Context, q store.Querier, orgID, id string) (pixReceivedRow, error) {
	var p pixReceivedRow
	err := q.Get(ctx, &p, `SELECT * FROM dunning_pix_received WHERE organization_id = ? AND id = ?`, orgID, id)
	return p, err
}

// errPixNothingWaiting is a resolution of a Pix of which nothing (or
// less than asked) waits any more: assigned or dismissed already.
var errPixNothingWaiting = errors.New("dunning: nothing of this pix waits")

// takePixUnassigned takes amount of what waits of a Pix, for an
// assignment (assigned true) or a dismissal, by who at now: one UPDATE
// whose condition is what waits, so two people (or a retried call)
// cannot take the same money twice on either engine.
func takePixUnassigned(ctx context.Context, tx *store.Tx, orgID, id string, amount money.Cents, assigned bool, by, note string, now time.Time) error {
	applied, dismissed, done := amount, money.Cents(0), PixAssigned
	if !assigned {
		applied, dismissed, done = 0, amount, PixDismissed
	}
	res, err := tx.Exec(ctx, `UPDATE dunning_pix_received SET unassigned_cents = unassigned_cents - ?, applied_cents = applied_cents + ?,
			dismissed_cents = dismissed_cents + ?, status = CASE WHEN unassigned_cents = ? THEN ? ELSE status END,
			resolved_by = ?, resolved_at = ?, note = ?
		WHERE organization_id = ? AND id = ? AND unassigned_cents >= ? AND status IN (?, ?)`,
		int64(amount), int64(applied), int64(dismissed), int64(amount), done, by, now, note, orgID, id, int64(amount), PixUnmatched, PixExcess)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return errPixNothingWaiting
	}
	return nil
}

// listPixReceived is a page of the organization's Pix, newest first:
// only those with money waiting when waiting, and the total.
func listPixReceived(ctx context.Context, q store.Querier, orgID string, waiting bool, limit, offset int) ([]pixReceivedRow, int, error) {
	where := `organization_id = ?`
	if waiting {
		where += ` AND unassigned_cents > 0`
	}
	rows := []pixReceivedRow{}
	total, err := readNumberedPage(ctx, q, &rows, `SELECT * FROM dunning_pix_received WHERE `+where+` ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?`,
		`SELECT COUNT(*) FROM dunning_pix_received WHERE `+where, []any{orgID}, limit, offset)
	return rows, total, err
}
