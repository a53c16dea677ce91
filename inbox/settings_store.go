package inbox

import (
	"context"
	"errors"
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

// workspaceSettings returns the workspace's Inbox settings, creating them
// with the defaults when missing (workspaces made before the Inbox, or by
// another product, have none), and starting the month's counters at zero
// when the row still counts an earlier month. A workspace that is not a
// live one of orgID is store.ErrNotFound.
func (s *service) workspaceSettings(ctx context.Context, q store.Querier, orgID, workspaceID string) (workspaceSettings, error) {
	var ws workspaceSettings
	err := q.Get(ctx, &ws, `SELECT `+settingsColumns+` FROM inbox_workspace_settings
		WHERE workspace_id = ? AND organization_id = ?`, workspaceID, orgID)
	if errors.Is(err, store.ErrNotFound) {
		if err := insertDefaultSettings(ctx, q, orgID, workspaceID); err != nil {
			return ws, err
		}
		err = q.Get(ctx, &ws, `SELECT `+settingsColumns+` FROM inbox_workspace_settings
			WHERE workspace_id = ? AND organization_id = ?`, workspaceID, orgID)
	}
	if err != nil {
		return ws, err
	}
	now := store.Now()
	if month := usageMonth(now); ws.UsageMonth != month {
		// Only the first writer of the new month resets; the condition on
		// the old month makes a concurrent reset (or a reset racing an
		// addUsage of the new month) a no-op instead of a lost update.
		if _, err := q.Exec(ctx, `UPDATE inbox_workspace_settings
			SET usage_month = ?, monthly_cost_used = 0, monthly_emails_used = 0
			WHERE workspace_id = ? AND organization_id = ? AND usage_month = ?`,
			month, workspaceID, orgID, ws.UsageMonth); err != nil {
			return ws, err
		}
		if err := q.Get(ctx, &ws, `SELECT `+settingsColumns+` FROM inbox_workspace_settings
			WHERE workspace_id = ? AND organization_id = ?`, workspaceID, orgID); err != nil {
			return ws, err
		}
	}
	return ws, nil
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

// addUsage adds to the workspace's counters of the current month (after
// starting a new month at zero): intake counts each accepted e-mail,
// processing adds each run's cost.
func (s *service) addUsage(ctx context.Context, q store.Querier, orgID, workspaceID string, emails int, cost float64) error {
	for range 3 {
		ws, err := s.workspaceSettings(ctx, q, orgID, workspaceID)
		if err != nil {
			return err
		}
		err = store.ExpectOne(q.Exec(ctx, `UPDATE inbox_workspace_settings
			SET monthly_emails_used = monthly_emails_used + ?, monthly_cost_used = monthly_cost_used + ?
			WHERE workspace_id = ? AND organization_id = ? AND usage_month = ?`,
			emails, cost, workspaceID, orgID, ws.UsageMonth))
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		// The month turned between the read and the update: roll again.
	}
	return errors.New("inbox: usage month kept changing")
}
