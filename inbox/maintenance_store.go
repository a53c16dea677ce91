package inbox

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of the Inbox's periodic jobs (maintenance.go): both statements
// are idempotent, so a run repeated after a crash changes nothing more.

// resetMonthlyUsage starts every workspace whose counters still count an
// earlier month at zero in month ('YYYY-MM', usageMonth), and removes the
// usage slots of earlier months (00190_inbox_usage_counts.sql), which count
// nothing any more.
func resetMonthlyUsage(ctx context.Context, q store.Querier, month string) error {
	_, err := q.Exec(ctx, `UPDATE inbox_workspace_settings SET usage_month = ?, monthly_cost_used = 0, monthly_emails_used = 0, updated_at = ?
		WHERE usage_month <> ?`, month, store.Now(), month)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `DELETE FROM inbox_usage_counts WHERE usage_month < ?`, month)
	return err
}

// purgeDeleted deletes, for good, the inboxes (with their e-mails, raw
// messages and agent runs) and agents deleted before cutoff, and the
// e-mails deleted before it, in q (the purge's transaction).
func purgeDeleted(ctx context.Context, q store.Querier, cutoff time.Time) error {
	// E-mails go with their inbox; their raw message and agent runs
	// cascade.
	if _, err := q.Exec(ctx, `DELETE FROM emails WHERE inbox_id IN (SELECT id FROM inboxes WHERE deleted_at IS NOT NULL AND deleted_at < ?)`, cutoff); err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `DELETE FROM emails WHERE deleted_at IS NOT NULL AND deleted_at < ?`, cutoff); err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `DELETE FROM inboxes WHERE deleted_at IS NOT NULL AND deleted_at < ?`, cutoff); err != nil {
		return err
	}
	// An agent still named by an inbox (a deleted one kept for its
	// retention) stays until that inbox goes.
	_, err := q.Exec(ctx, `DELETE FROM inbox_agents WHERE deleted_at IS NOT NULL AND deleted_at < ?
		AND NOT EXISTS (SELECT 1 FROM inboxes i WHERE i.agent_id = inbox_agents.id)`, cutoff)
	return err
}
