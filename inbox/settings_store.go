package inbox

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// defaultSource is the source a workspace's Inbox settings get when nobody
// chose one: the workspace was made by (or for) the Autonomous Inbox.
const defaultSource = "kobana_autonomous_inbox"

// workspaceSources are the products a workspace may say it came from
// (docs/decisions.md "The Autonomous Inbox").
var workspaceSources = []string{"kobana_app", "kobana_billing", "kobana_autonomous_inbox", "kobana_agent", "kobana_finance", "kobana_legal", "kobana_team"}

// usageMonth is the month usage counters belong to: 'YYYY-MM' in UTC.
func usageMonth(t time.Time) string { return t.UTC().Format("2006-01") }

const settingsColumns = `workspace_id, organization_id, source, monthly_cost_limit, monthly_emails_limit,
	usage_month, monthly_cost_used, monthly_emails_used, custom_metadata, updated_at`

// updated_at tells when the settings were last changed by a person; the
// usage counters moving does not touch it.

// settingsSelect reads the settings with the month's usage: the row's own
// counters plus the slots of its usage_month (00190_inbox_usage_counts.sql).
const settingsSelect = `SELECT s.workspace_id, s.organization_id, s.source, s.monthly_cost_limit, s.monthly_emails_limit,
	s.usage_month, s.monthly_cost_used + ` + usageCostSum + ` AS monthly_cost_used,
	s.monthly_emails_used + ` + usageEmailsSum + ` AS monthly_emails_used, s.custom_metadata, s.updated_at
	FROM inbox_workspace_settings s WHERE s.workspace_id = ? AND s.organization_id = ?`

// usageCostSum and usageEmailsSum are the usage slots of the settings row
// s's month.
const (
	usageCostSum = `COALESCE((SELECT SUM(c.cost) FROM inbox_usage_counts c
		WHERE c.workspace_id = s.workspace_id AND c.usage_month = s.usage_month), 0)`
	usageEmailsSum = `COALESCE((SELECT SUM(c.emails) FROM inbox_usage_counts c
		WHERE c.workspace_id = s.workspace_id AND c.usage_month = s.usage_month), 0)`
)

// readWorkspaceSettings returns the workspace's Inbox settings, creating them
// with the defaults when missing (workspaces made before the Inbox, or by
// another product, have none), and starting the month's counters at zero
// when the row still counts an earlier month. A workspace that is not a
// live one of orgID is store.ErrNotFound.
func readWorkspaceSettings(ctx context.Context, q store.Querier, orgID, workspaceID string) (workspaceSettings, error) {
	var ws workspaceSettings
	err := q.Get(ctx, &ws, settingsSelect, workspaceID, orgID)
	if errors.Is(err, store.ErrNotFound) {
		if err := insertDefaultSettings(ctx, q, orgID, workspaceID); err != nil {
			return ws, err
		}
		err = q.Get(ctx, &ws, settingsSelect, workspaceID, orgID)
	}
	if err != nil {
		return ws, err
	}
	return currentMonth(ctx, q, ws)
}

// currentMonth is ws as of this month: a row still counting an earlier
// month is started over at zero first (and that month's slots removed).
func currentMonth(ctx context.Context, q store.Querier, ws workspaceSettings) (workspaceSettings, error) {
	month := usageMonth(store.Now())
	if ws.UsageMonth == month {
		return ws, nil
	}
	// Only the first writer of the new month resets; the condition on
	// the old month makes a concurrent reset (or a reset racing an
	// addUsage of the new month) a no-op instead of a lost update.
	if _, err := q.Exec(ctx, `UPDATE inbox_workspace_settings
		SET usage_month = ?, monthly_cost_used = 0, monthly_emails_used = 0
		WHERE workspace_id = ? AND organization_id = ? AND usage_month = ?`,
		month, ws.WorkspaceID, ws.OrganizationID, ws.UsageMonth); err != nil {
		return ws, err
	}
	if _, err := q.Exec(ctx, `DELETE FROM inbox_usage_counts
		WHERE workspace_id = ? AND organization_id = ? AND usage_month < ?`, ws.WorkspaceID, ws.OrganizationID, month); err != nil {
		return ws, err
	}
	var out workspaceSettings
	err := q.Get(ctx, &out, settingsSelect, ws.WorkspaceID, ws.OrganizationID)
	return out, err
}

// insertDefaultSettings creates the settings row with the defaults, only
// for a live workspace of orgID; a concurrent creation wins quietly.
func insertDefaultSettings(ctx context.Context, q store.Querier, orgID, workspaceID string) error {
	now := store.Now()
	_, err := q.Exec(ctx, `INSERT INTO inbox_workspace_settings (`+settingsColumns+`)
		SELECT id, organization_id, ?, NULL, NULL, ?, 0, 0, '{}', ?
		FROM workspaces WHERE id = ? AND organization_id = ? AND deleted_at IS NULL
		ON CONFLICT (workspace_id) DO NOTHING`,
		defaultSource, usageMonth(now), now, workspaceID, orgID)
	return err
}

// insertSettings creates a new workspace's settings row with no usage
// counted yet.
func insertSettings(ctx context.Context, q store.Querier, ws workspaceSettings) error {
	_, err := q.Exec(ctx, `INSERT INTO inbox_workspace_settings (`+settingsColumns+`) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?)`,
		ws.WorkspaceID, ws.OrganizationID, ws.Source, ws.MonthlyCostLimit, ws.MonthlyEmailsLimit, ws.UsageMonth, ws.CustomMetadataJSON, ws.UpdatedAt)
	return err
}

// updateSettings writes what a caller may change of a workspace's
// settings (never its usage counters); store.ErrNotFound when the row is
// not there.
func updateSettings(ctx context.Context, q store.Querier, ws workspaceSettings) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE inbox_workspace_settings SET source = ?, monthly_cost_limit = ?, monthly_emails_limit = ?, custom_metadata = ?, updated_at = ?
		WHERE workspace_id = ? AND organization_id = ?`, ws.Source, ws.MonthlyCostLimit, ws.MonthlyEmailsLimit, ws.CustomMetadataJSON, ws.UpdatedAt, ws.WorkspaceID, ws.OrganizationID))
}

// usageSlots is how many rows a workspace's month of usage is spread over:
// enough that the e-mails arriving together on PostgreSQL seldom update
// the same one (each update holds its row until the commit), few enough
// that the settings read sums them at no cost.
const usageSlots = 16

// addUsage adds to the workspace's counters of the current month: intake
// counts each accepted e-mail, processing adds each run's cost. It adds to
// one of the month's slots (00190_inbox_usage_counts.sql), picked at
// random, so concurrent intakes of one workspace do not queue on one row;
// a settings row still counting an earlier month is started over first.
// A workspace that is not a live one of orgID is store.ErrNotFound.
func addUsage(ctx context.Context, q store.Querier, orgID, workspaceID string, emails int, cost float64) error {
	ws, err := readWorkspaceSettings(ctx, q, orgID, workspaceID)
	if err != nil {
		return err
	}
	return addUsageSlot(ctx, q, ws, emails, cost)
}

// addUsageSlot is addUsage for settings read (and started in the current
// month) in the same transaction: one upsert, no read.
func addUsageSlot(ctx context.Context, q store.Querier, ws workspaceSettings, emails int, cost float64) error {
	_, err := q.Exec(ctx, `INSERT INTO inbox_usage_counts (workspace_id, organization_id, usage_month, slot, emails, cost)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (workspace_id, usage_month, slot)
		DO UPDATE SET emails = inbox_usage_counts.emails + excluded.emails, cost = inbox_usage_counts.cost + excluded.cost`,
		ws.WorkspaceID, ws.OrganizationID, ws.UsageMonth, rand.IntN(usageSlots), emails, cost)
	return err
}

// limited reports whether a monthly limit applies to the workspace: its
// intake must then count under the settings row's lock (lockedSettings).
func limited(ws workspaceSettings) bool {
	return ws.MonthlyEmailsLimit != nil || ws.MonthlyCostLimit != nil
}

// lockedSettings reads the workspace's settings and usage with its row
// locked until the transaction ends (PostgreSQL; SQLite's transactions are
// serialized already), so two e-mails arriving together cannot both pass
// the monthly limit's last slot. A workspace without a monthly limit has
// no last slot: its row is not locked here, and its e-mails count their
// usage in slots that e-mails arriving together seldom share
// (addUsageSlot; docs/decisions.md, "Inbox intake on PostgreSQL").
func lockedSettings(ctx context.Context, tx *store.Tx, orgID, workspaceID string) (workspaceSettings, error) {
	ws, err := readWorkspaceSettings(ctx, tx, orgID, workspaceID)
	if err != nil || tx.Dialect() != store.Postgres || !limited(ws) {
		return ws, err
	}
	var id string
	if err := tx.Get(ctx, &id, `SELECT workspace_id FROM inbox_workspace_settings
		WHERE workspace_id = ? AND organization_id = ? FOR UPDATE`, workspaceID, orgID); err != nil {
		return ws, err
	}
	return readWorkspaceSettings(ctx, tx, orgID, workspaceID)
}
