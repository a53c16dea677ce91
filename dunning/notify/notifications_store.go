package notify

import (
	"context"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The notification log's SQL (dunning_notifications), and the few reads
// of other tables the send job and the API make on its behalf
// (docs/decisions.md "Product code layout": an aggregate's SQL is in its
// *_store.go).

// NotificationColumns are dunning_notifications' columns, as Notification
// reads them; the layers above select them too (the exports, the
// escalation's prior notices, the régua's approvals).
const NotificationColumns = `id, organization_id, debtor_id, charge_id, enrollment_id, step_id, kind, resend_of, channel,
	to_address, subject, body, status, provider, provider_message_id, error, queued_at, sending_at, sent_at,
	delivered_at, failed_at, created_by, created_at, updated_at, pix_payload`

// getNotification loads a notification of the organization; another
// organization's is store.ErrNotFound, as a missing one.
func getNotification(ctx context.Context, q store.Querier, orgID, id string) (Notification, error) {
	var n Notification
	err := q.Get(ctx, &n, `SELECT `+NotificationColumns+` FROM dunning_notifications WHERE organization_id = ? AND id = ?`, orgID, id)
	return n, err
}

// GetNotificationByID loads a notification by id alone, for the provider
// callbacks, whose signature (not a token) says who is asking.
func GetNotificationByID(ctx context.Context, q store.Querier, id string) (Notification, error) {
	var n Notification
	err := q.Get(ctx, &n, `SELECT `+NotificationColumns+` FROM dunning_notifications WHERE id = ?`, id)
	return n, err
}

// InsertNotification writes n. A plan step's row that loses the race for
// its (enrollment, step) to another worker's insert writes nothing and
// reports false: ON CONFLICT DO NOTHING keeps the transaction usable on
// PostgreSQL, where a unique violation would abort it.
func InsertNotification(ctx context.Context, tx *store.Tx, n Notification) (bool, error) {
	res, err := tx.Exec(ctx, `INSERT INTO dunning_notifications (`+NotificationColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		n.ID, n.OrganizationID, n.DebtorID, n.ChargeID, n.EnrollmentID, n.StepID, n.Kind, n.ResendOf, n.Channel,
		n.ToAddress, n.Subject, n.Body, n.Status, n.Provider, n.ProviderMessageID, n.Error, n.QueuedAt, n.SendingAt, n.SentAt,
		n.DeliveredAt, n.FailedAt, n.CreatedBy, n.CreatedAt, n.UpdatedAt, n.PixPayload)
	if err != nil {
		return false, err
	}
	rows, err := res.RowsAffected()
	return rows == 1, err
}

// notificationFilter narrows the log.
type notificationFilter struct {
	ChargeID, DebtorID string
	Statuses, Channels []string
	Offset, Limit      int
}

// listNotifications is one page of the log, newest first (the index
// dunning_notifications_list), and how many rows the whole filter has.
func listNotifications(ctx context.Context, q store.Querier, orgID string, f notificationFilter) ([]Notification, int, error) {
	where := ` WHERE organization_id = ?`
	args := []any{orgID}
	if f.ChargeID != "" {
		where += ` AND charge_id = ?`
		args = append(args, f.ChargeID)
	}
	if f.DebtorID != "" {
		where += ` AND debtor_id = ?`
		args = append(args, f.DebtorID)
	}
	for col, vals := range map[string][]string{"status": f.Statuses, "channel": f.Channels} {
		if len(vals) == 0 {
			continue
		}
		where += ` AND ` + col + ` IN (?` + strings.Repeat(", ?", len(vals)-1) + `)`
		for _, v := range vals {
			args = append(args, v)
		}
	}
	var total int
	if err := q.Get(ctx, &total, `SELECT COUNT(*) FROM dunning_notifications`+where, args...); err != nil {
		return nil, 0, err
	}
	rows := []Notification{}
	err := q.Select(ctx, &rows, `SELECT `+NotificationColumns+` FROM dunning_notifications`+where+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return rows, total, err
}

// chargeNotifications are a charge's latest notifications, newest first
// (at most limit), for the charge as charges_get shows it.
func chargeNotifications(ctx context.Context, q store.Querier, orgID, chargeID string, limit int) ([]Notification, error) {
	rows, _, err := listNotifications(ctx, q, orgID, notificationFilter{ChargeID: chargeID, Limit: limit})
	return rows, err
}

// markNotificationSending moves a queued (or interrupted sending) row to
// sending, keeping the first sending_at.
func markNotificationSending(ctx context.Context, tx *store.Tx, id string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_notifications SET status = ?, sending_at = COALESCE(sending_at, ?), updated_at = ?
			WHERE id = ? AND status IN (?, ?)`, NotificationSending, now, now, id, NotificationQueued, NotificationSending)
	return err
}

// enrollmentStatus is the status of a plan step's enrollment
// (dunning_enrollments), store.ErrNotFound when it is gone.
func enrollmentStatus(ctx context.Context, tx *store.Tx, enrollmentID string) (string, error) {
	var status string
	err := tx.Get(ctx, &status, `SELECT status FROM dunning_enrollments WHERE id = ?`, enrollmentID)
	return status, err
}

// markNotificationSent records the provider's acceptance of a sending (or
// unknown) row, with its message id (nil: none), and says whether the row
// changed: a status callback may already have moved it further.
func markNotificationSent(ctx context.Context, tx *store.Tx, id string, pid *string, now time.Time) (bool, error) {
	res, err := tx.Exec(ctx, `UPDATE dunning_notifications SET status = ?, provider_message_id = COALESCE(?, provider_message_id),
			sent_at = ?, error = NULL, updated_at = ? WHERE id = ? AND status IN (?, ?)`,
		NotificationSent, pid, now, now, id, NotificationSending, NotificationUnknown)
	if err != nil {
		return false, err
	}
	changed, _ := res.RowsAffected()
	return changed != 0, nil
}

// recordSentReceipt keeps the message id and the first sent_at of a row
// already past sent, without touching its status.
func recordSentReceipt(ctx context.Context, tx *store.Tx, id string, pid *string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_notifications SET provider_message_id = COALESCE(provider_message_id, ?), sent_at = COALESCE(sent_at, ?)
				WHERE id = ?`, pid, now, id)
	return err
}

// markChargeNotified records on the charge (dunning_charges) when a
// message about it last left.
func markChargeNotified(ctx context.Context, tx *store.Tx, orgID, chargeID string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_charges SET last_notified_at = ? WHERE id = ? AND organization_id = ?`,
		now, chargeID, orgID)
	return err
}

// requeueNotification puts a sending row back to queued, with why.
func requeueNotification(ctx context.Context, q store.Querier, id, why string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE dunning_notifications SET status = ?, error = ?, updated_at = ? WHERE id = ? AND status = ?`,
		NotificationQueued, why, now, id, NotificationSending)
	return err
}

// finishNotification moves a queued or sending row to status (failed or
// unknown), recording why and failedAt (nil keeps the column), and says
// whether the row changed.
func finishNotification(ctx context.Context, tx *store.Tx, id, status, why string, failedAt *time.Time, now time.Time) (bool, error) {
	res, err := tx.Exec(ctx, `UPDATE dunning_notifications SET status = ?, error = ?, failed_at = COALESCE(?, failed_at), updated_at = ?
		WHERE id = ? AND status IN (?, ?)`, status, why, failedAt, now, id, NotificationQueued, NotificationSending)
	if err != nil {
		return false, err
	}
	changed, _ := res.RowsAffected()
	return changed != 0, nil
}

// recordProviderMessageID keeps the provider's message id of a row that
// has none yet.
func recordProviderMessageID(ctx context.Context, tx *store.Tx, id, messageID string) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_notifications SET provider_message_id = COALESCE(provider_message_id, ?) WHERE id = ?`, messageID, id)
	return err
}

// recordCallbackStatus moves row id to status to, as a provider's
// callback reports it with the provider's messageID (kept when the row
// has one): sent, delivered and opened record when it left and clear the
// error, delivered when it arrived, failed when and why (why).
func recordCallbackStatus(ctx context.Context, tx *store.Tx, id, to, messageID string, why *string, now time.Time) error {
	set := `status = ?, provider_message_id = COALESCE(provider_message_id, ?), updated_at = ?`
	args := []any{to, messageID, now}
	switch to {
	case NotificationSent:
		set += `, sent_at = COALESCE(sent_at, ?), error = NULL`
		args = append(args, now)
	case NotificationDelivered:
		set += `, delivered_at = ?, sent_at = COALESCE(sent_at, ?), error = NULL`
		args = append(args, now, now)
	case NotificationOpened:
		set += `, sent_at = COALESCE(sent_at, ?), error = NULL`
		args = append(args, now)
	case NotificationFailed:
		set += `, failed_at = ?, error = ?`
		args = append(args, now, why)
	}
	_, err := tx.Exec(ctx, `UPDATE dunning_notifications SET `+set+` WHERE id = ?`, append(args, id)...)
	return err
}

// chargeByRef reads the organization's charge by id or external_id (the
// id wins), locked when q is a PostgreSQL transaction (ledger.ForUpdate).
func chargeByRef(ctx context.Context, q store.Querier, orgID, ref string) (ledger.Charge, error) {
	return ledger.GetChargeWhere(ctx, q, `organization_id = ? AND (id = ? OR external_id = ?)
		ORDER BY CASE WHEN id = ? THEN 0 ELSE 1 END LIMIT 1`+ledger.ForUpdate(q), orgID, ref, ref, ref)
}

// lockChargeByID reads the organization's charge by id, locked like
// chargeByRef.
func lockChargeByID(ctx context.Context, q store.Querier, orgID, id string) (ledger.Charge, error) {
	return ledger.GetChargeWhere(ctx, q, `organization_id = ? AND id = ?`+ledger.ForUpdate(q), orgID, id)
}
