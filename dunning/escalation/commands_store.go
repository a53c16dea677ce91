package escalation

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// command is a row of dunning_commands.
type command struct {
	ID                string                  `db:"id"`
	OrganizationID    string                  `db:"organization_id"`
	Kind              string                  `db:"kind"`
	ChargeID          string                  `db:"charge_id"`
	DebtorID          string                  `db:"debtor_id"`
	Provider          string                  `db:"provider"`
	Status            lifecycle.CommandStatus `db:"status"`
	Amount            money.Cents             `db:"amount_cents"`
	Protocol          *string                 `db:"protocol"`
	Error             *string                 `db:"error"`
	ExitReason        *string                 `db:"exit_reason"`
	ExitDueAt         *time.Time              `db:"exit_due_at"`
	ExitOverdueAt     *time.Time              `db:"exit_overdue_at"`
	ConsentDocumentID *string                 `db:"consent_document_id"`
	RequestedAt       time.Time               `db:"requested_at"`
	ConfirmedAt       *time.Time              `db:"confirmed_at"`
	FailedAt          *time.Time              `db:"failed_at"`
	ExitRequestedAt   *time.Time              `db:"exit_requested_at"`
	ExitedAt          *time.Time              `db:"exited_at"`
	CreatedBy         string                  `db:"created_by"`
	CreatedAt         time.Time               `db:"created_at"`
	UpdatedAt         time.Time               `db:"updated_at"`
}

// activeCommandStatuses are those the unique index dunning_commands_active
// keeps to one per charge and kind.
var activeCommandStatuses = []any{string(lifecycle.CommandRequested), string(lifecycle.CommandConfirmed),
	string(lifecycle.ReportRemovalRequested), string(lifecycle.ProtestCancelRequested)}

func getCommand(ctx context.Context, q store.Querier, orgID, kind, id, lock string) (command, error) {
	var c command
	err := q.Get(ctx, &c, `SELECT * FROM dunning_commands WHERE organization_id = ? AND kind = ? AND id = ?`+lock, orgID, kind, id)
	return c, err
}

// activeCommand is the charge's active command of kind, or ErrNotFound.
func activeCommand(ctx context.Context, q store.Querier, orgID, kind, chargeID string) (command, error) {
	var c command
	err := q.Get(ctx, &c, `SELECT * FROM dunning_commands WHERE organization_id = ? AND kind = ? AND charge_id = ? AND status IN (?, ?, ?, ?)`,
		append([]any{orgID, kind, chargeID}, activeCommandStatuses...)...)
	return c, err
}

// insertCommandRow writes cmd (requested); a second active command of
// its kind on the charge is store.ErrConflict (dunning_commands_active).
func insertCommandRow(ctx context.Context, tx *store.Tx, cmd command) error {
	_, err := tx.Exec(ctx, `INSERT INTO dunning_commands (id, organization_id, kind, charge_id, debtor_id, provider, status, amount_cents,
		requested_at, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		cmd.ID, cmd.OrganizationID, cmd.Kind, cmd.ChargeID, cmd.DebtorID, cmd.Provider, string(cmd.Status), int64(cmd.Amount),
		cmd.RequestedAt, cmd.CreatedBy, cmd.CreatedAt, cmd.UpdatedAt)
	return err
}

// setCommandExit moves cmd, still in status from, to exiting with the
// reason, the deadline and the consent document (nil keeps the column);
// a command that moved meanwhile is store.ErrNotFound.
func setCommandExit(ctx context.Context, tx *store.Tx, id string, from, exiting lifecycle.CommandStatus, reason string, due time.Time, consent *string, now time.Time) error {
	return store.ExpectOne(tx.Exec(ctx, `UPDATE dunning_commands SET status = ?, exit_reason = ?, exit_requested_at = ?, exit_due_at = ?,
		consent_document_id = COALESCE(?, consent_document_id), updated_at = ? WHERE id = ? AND status = ?`,
		string(exiting), reason, now, due, consent, now, id, string(from)))
}

// registeredCommands are the charge's requested and confirmed commands
// of every kind.
func registeredCommands(ctx context.Context, tx *store.Tx, orgID, chargeID string) ([]command, error) {
	var cmds []command
	err := tx.Select(ctx, &cmds, `SELECT * FROM dunning_commands WHERE organization_id = ? AND charge_id = ? AND status IN (?, ?)`,
		orgID, chargeID, string(lifecycle.CommandRequested), string(lifecycle.CommandConfirmed))
	return cmds, err
}

// lastCommand is the charge's newest command of kind.
func lastCommand(ctx context.Context, tx *store.Tx, orgID, kind, chargeID string) (command, error) {
	var last command
	err := tx.Get(ctx, &last, `SELECT * FROM dunning_commands WHERE organization_id = ? AND kind = ? AND charge_id = ? ORDER BY created_at DESC, id DESC LIMIT 1`,
		orgID, kind, chargeID)
	return last, err
}

// commandListFilter is a listing of one kind's commands: an optional
// charge (its id) and status, and a numbered page.
type commandListFilter struct {
	Kind, ChargeID, Status string
	Limit, Offset          int
}

// listCommands reads a page of the organization's commands, newest
// first, and how many match in all.
func listCommands(ctx context.Context, q store.Querier, orgID string, f commandListFilter) ([]command, int, error) {
	where, args := `organization_id = ? AND kind = ?`, []any{orgID, f.Kind}
	if f.ChargeID != "" {
		where, args = where+` AND charge_id = ?`, append(args, f.ChargeID)
	}
	if f.Status != "" {
		where, args = where+` AND status = ?`, append(args, f.Status)
	}
	var total int
	if err := q.Get(ctx, &total, `SELECT COUNT(*) FROM dunning_commands WHERE `+where, args...); err != nil {
		return nil, 0, err
	}
	rows := []command{}
	if err := q.Select(ctx, &rows, `SELECT * FROM dunning_commands WHERE `+where+` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...); err != nil {
		return nil, 0, err
	}
	return rows, total, nil
}

// getOrgCommand reads the organization's command id, of any kind.
func getOrgCommand(ctx context.Context, q store.Querier, orgID, id string) (command, error) {
	var cmd command
	err := q.Get(ctx, &cmd, `SELECT * FROM dunning_commands WHERE organization_id = ? AND id = ?`, orgID, id)
	return cmd, err
}

// lockCommand reads command id by id alone (a provider's callback),
// locked (ledger.ForUpdate).
func lockCommand(ctx context.Context, tx *store.Tx, id string) (command, error) {
	var cmd command
	err := tx.Get(ctx, &cmd, `SELECT * FROM dunning_commands WHERE id = ?`+ledger.ForUpdate(tx), id)
	return cmd, err
}

// setCommandProtocol records the provider's protocol of a command that
// has none.
func setCommandProtocol(ctx context.Context, q store.Querier, id, protocol string) error {
	_, err := q.Exec(ctx, `UPDATE dunning_commands SET protocol = ? WHERE id = ? AND protocol IS NULL`, protocol, id)
	return err
}

// setCommandError records why the command's last call failed, its status
// unchanged.
func setCommandError(ctx context.Context, q store.Querier, id, msg string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE dunning_commands SET error = ?, updated_at = ? WHERE id = ?`, msg, now, id)
	return err
}

// commandRequest is the charge of a command with its debtor's name and
// document, what a provider is sent.
type commandRequest struct {
	ledger.Charge
	DebtorName     string `db:"debtor_name"`
	DebtorDocument string `db:"debtor_document"`
}

// loadCommandRequest reads the command's charge and debtor.
func loadCommandRequest(ctx context.Context, q store.Querier, cmd command) (commandRequest, error) {
	var req commandRequest
	err := q.Get(ctx, &req, `SELECT c.*, d.name AS debtor_name, d.document AS debtor_document, d.person_kind AS debtor_person_kind FROM dunning_charges c
		JOIN dunning_debtors d ON d.id = c.debtor_id WHERE c.id = ? AND c.organization_id = ?`, cmd.ChargeID, cmd.OrganizationID)
	return req, err
}

// recordSubmitAnswer writes a submit's answer (to, and the protocol) on
// a command still requested; one that moved meanwhile is
// store.ErrNotFound.
func recordSubmitAnswer(ctx context.Context, tx *store.Tx, id string, to lifecycle.CommandStatus, protocol string, now time.Time) error {
	res, err := tx.Exec(ctx, `UPDATE dunning_commands SET status = ?, protocol = ?, confirmed_at = CASE WHEN ? THEN ? ELSE confirmed_at END,
			error = NULL, updated_at = ? WHERE id = ? AND status = ?`,
		string(to), protocol, to == lifecycle.CommandConfirmed, now, now, id, string(lifecycle.CommandRequested))
	return store.ExpectOne(res, err)
}

// keepCommandProtocol records the protocol of a command that has none,
// in tx.
func keepCommandProtocol(ctx context.Context, tx *store.Tx, id, protocol string) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_commands SET protocol = COALESCE(protocol, ?) WHERE id = ?`, protocol, id)
	return err
}

// recordCommandOutcome moves cmd, still in the status it was read in, to
// to (exited is its kind's way-out end) with the error (nil clears it)
// and the protocol (kept when it has one; "" keeps the column), stamping
// when it was confirmed, failed or exited; a command that moved
// meanwhile is store.ErrNotFound.
func recordCommandOutcome(ctx context.Context, tx *store.Tx, cmd command, to, exited lifecycle.CommandStatus, errText *string, protocol string, now time.Time) error {
	set := `status = ?, error = ?, protocol = COALESCE(protocol, NULLIF(?, '')), updated_at = ?`
	args := []any{string(to), errText, protocol, now}
	switch to {
	case lifecycle.CommandConfirmed:
		set += `, confirmed_at = ?`
		args = append(args, now)
	case lifecycle.CommandFailed, lifecycle.CommandError:
		set += `, failed_at = ?`
		args = append(args, now)
	case exited:
		set += `, exited_at = ?`
		args = append(args, now)
	}
	return store.ExpectOne(tx.Exec(ctx, `UPDATE dunning_commands SET `+set+` WHERE id = ? AND status = ?`,
		append(args, cmd.ID, string(cmd.Status))...))
}

// recordLateConfirmation keeps the confirmation time and protocol of a
// command already on its way out.
func recordLateConfirmation(ctx context.Context, tx *store.Tx, id, protocol string, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE dunning_commands SET confirmed_at = COALESCE(confirmed_at, ?), protocol = COALESCE(protocol, ?) WHERE id = ?`,
		now, protocol, id)
	return err
}

// overdueRemovals are up to 500 reports whose removal is past its
// deadline at now and not yet raised, the oldest deadline first.
func overdueRemovals(ctx context.Context, q store.Querier, now time.Time) ([]command, error) {
	var late []command
	err := q.Select(ctx, &late, `SELECT * FROM dunning_commands WHERE status = ? AND exit_due_at <= ? AND exit_overdue_at IS NULL ORDER BY exit_due_at LIMIT 500`,
		string(lifecycle.ReportRemovalRequested), now)
	return late, err
}

// markRemovalOverdue raises a report's removal once; one already raised
// or removed meanwhile is store.ErrNotFound.
func markRemovalOverdue(ctx context.Context, tx *store.Tx, id string, now time.Time) error {
	res, err := tx.Exec(ctx, `UPDATE dunning_commands SET exit_overdue_at = ?, updated_at = ? WHERE id = ? AND status = ? AND exit_overdue_at IS NULL`,
		now, now, id, string(lifecycle.ReportRemovalRequested))
	return store.ExpectOne(res, err)
}

// priorNoticesSent are the charge's prior notices that left (sent,
// delivered or opened), the oldest first.
func priorNoticesSent(ctx context.Context, tx *store.Tx, orgID, chargeID string) ([]notify.Notification, error) {
	var sent []notify.Notification
	err := tx.Select(ctx, &sent, `SELECT `+notify.NotificationColumns+` FROM dunning_notifications WHERE organization_id = ? AND charge_id = ? AND kind = ?
		AND status IN (?, ?, ?) AND sent_at IS NOT NULL ORDER BY sent_at`, orgID, chargeID, notify.KindPriorNotice,
		notify.NotificationSent, notify.NotificationDelivered, notify.NotificationOpened)
	return sent, err
}
