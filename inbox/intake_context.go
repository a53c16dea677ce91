package inbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
)

// An e-mail's intake and its processing each need the same four things
// about the e-mail's inbox: the inbox, its workspace's settings and usage,
// and who it belongs to (the organization's name, the workspace's external
// id and label) for the events' envelope (events.go). mailContext reads
// them in one statement instead of four; on PostgreSQL each statement is
// a round trip that costs CPU in this process, in the driver and in the
// server (docs/decisions.md, "Inbox intake on PostgreSQL").

// mailContext is what the intake and processing know of an e-mail's
// inbox.
type mailContext struct {
	inbox  inboxRecord
	tenant tenantSnapshot
	// settings is the workspace's settings of this month; ok false when
	// the one read could not tell (no settings row yet, a row still
	// counting an earlier month): readWorkspaceSettings then reads them the
	// long way, creating or starting them over.
	settings   workspaceSettings
	settingsOK bool
}

// tenantSnapshot is who an event belongs to as its envelope names them;
// a nil field was not found (the event then leaves it out, as withTenant
// does).
type tenantSnapshot struct {
	OrgName      *string `db:"tenant_org_name"`
	WSExternalID *string `db:"tenant_ws_external_id"`
	WSLabel      *string `db:"tenant_ws_label"`
}

// add writes the snapshot into an event's data, as withTenant does.
func (t tenantSnapshot) add(orgID, workspaceID string, data map[string]any) map[string]any {
	if t.OrgName != nil {
		data["organization"] = map[string]any{"id": orgID, "name": *t.OrgName}
	}
	if t.WSExternalID != nil && t.WSLabel != nil {
		data["workspace"] = map[string]any{"id": workspaceID, "external_id": *t.WSExternalID, "label": *t.WSLabel}
	}
	return data
}

// readTenant is the snapshot read the long way (accounts), for an e-mail
// whose inbox is gone.
func readTenant(ctx context.Context, acc *accounts.Store, orgID, workspaceID string) tenantSnapshot {
	var t tenantSnapshot
	if org, err := acc.GetOrganization(ctx, orgID); err == nil {
		t.OrgName = &org.Name
	}
	if ws, err := acc.GetWorkspace(ctx, orgID, workspaceID); err == nil {
		t.WSExternalID, t.WSLabel = &ws.ExternalID, &ws.Label
	}
	return t
}

// mailContextRow is the row mailContextColumns read.
type mailContextRow struct {
	Inbox inboxRecord `db:"inbox"`
	tenantSnapshot
	SettingsFound      int        `db:"settings_found"`
	Source             string     `db:"settings_source"`
	MonthlyCostLimit   *float64   `db:"settings_monthly_cost_limit"`
	MonthlyEmailsLimit *int       `db:"settings_monthly_emails_limit"`
	UsageMonth         string     `db:"settings_usage_month"`
	MonthlyCostUsed    float64    `db:"settings_monthly_cost_used"`
	MonthlyEmailsUsed  int        `db:"settings_monthly_emails_used"`
	CustomMetadataJSON string     `db:"settings_custom_metadata"`
	SettingsUpdatedAt  *time.Time `db:"settings_updated_at"`
}

// mailContextColumns read an inbox i (its columns as inbox.<name>) with
// its workspace's settings s (the month's usage as settingsSelect sums
// it) and the tenant snapshot (o, w), joined by mailContextJoins.
var mailContextColumns = aliasColumns("i.", "inbox.", inboxColumns) + `,
	CASE WHEN s.workspace_id IS NULL THEN 0 ELSE 1 END AS settings_found,
	COALESCE(s.source, '') AS settings_source,
	s.monthly_cost_limit AS settings_monthly_cost_limit,
	s.monthly_emails_limit AS settings_monthly_emails_limit,
	COALESCE(s.usage_month, '') AS settings_usage_month,
	COALESCE(s.monthly_cost_used, 0) + ` + usageCostSum + ` AS settings_monthly_cost_used,
	COALESCE(s.monthly_emails_used, 0) + ` + usageEmailsSum + ` AS settings_monthly_emails_used,
	COALESCE(s.custom_metadata, '{}') AS settings_custom_metadata,
	s.updated_at AS settings_updated_at,
	o.name AS tenant_org_name, w.external_id AS tenant_ws_external_id, w.label AS tenant_ws_label`

// mailContextJoins joins an inbox i to what mailContextColumns read.
const mailContextJoins = `
	LEFT JOIN inbox_workspace_settings s ON s.workspace_id = i.workspace_id AND s.organization_id = i.organization_id
	LEFT JOIN organizations o ON o.id = i.organization_id
	LEFT JOIN workspaces w ON w.id = i.workspace_id AND w.organization_id = i.organization_id AND w.deleted_at IS NULL`

// mailContextQuery reads the context of a live inbox by id.
var mailContextQuery = `SELECT ` + mailContextColumns + ` FROM inboxes i` + mailContextJoins + `
	WHERE i.deleted_at IS NULL AND i.organization_id = ? AND i.workspace_id = ? AND i.id = ?`

// readMailContext reads the context of a live inbox of the workspace by
// id; store.ErrNotFound when the inbox is gone.
func readMailContext(ctx context.Context, q store.Querier, orgID, workspaceID, inboxID string) (mailContext, error) {
	var r mailContextRow
	if err := q.Get(ctx, &r, mailContextQuery, orgID, workspaceID, inboxID); err != nil {
		return mailContext{}, err
	}
	return r.context()
}

// processInput is what a processing job reads before it runs: the
// e-mail, its raw message and its inbox's context.
type processInput struct {
	email      emailRecord
	raw        []byte
	mc         mailContext
	inboxFound bool
}

// processQuery reads a live e-mail with its raw message and its live
// inbox's context in one statement (a round trip instead of three on
// PostgreSQL: docs/decisions.md, "Inbox intake on PostgreSQL").
var processQuery = `SELECT ` + aliasColumns("e.", "email.", emailColumns) + `, r.raw, ` + mailContextColumns + `
	FROM emails e
	JOIN inbox_email_raw r ON r.email_id = e.id
	JOIN inboxes i ON i.id = e.inbox_id AND i.organization_id = e.organization_id AND i.workspace_id = e.workspace_id
		AND i.deleted_at IS NULL` + mailContextJoins + `
	WHERE e.organization_id = ? AND e.id = ? AND e.deleted_at IS NULL`

// readProcessInput reads the e-mail and what its processing needs;
// store.ErrNotFound when the e-mail is gone. An e-mail whose inbox is gone
// (or, never expected, without its raw message) is read the long way.
func readProcessInput(ctx context.Context, q store.Querier, orgID, emailID string) (processInput, error) {
	var r struct {
		Email emailRecord `db:"email"`
		Raw   []byte      `db:"raw"`
		mailContextRow
	}
	err := q.Get(ctx, &r, processQuery, orgID, emailID)
	if err == nil {
		mc, err := r.context()
		return processInput{email: r.Email, raw: r.Raw, mc: mc, inboxFound: true}, err
	}
	if !errors.Is(err, store.ErrNotFound) {
		return processInput{}, err
	}
	var in processInput
	if in.email, err = getEmail(ctx, q, orgID, emailID); err != nil {
		return in, err
	}
	if in.raw, err = emailRaw(ctx, q, orgID, emailID); err != nil {
		// Not "deleted meanwhile": the job fails and is tried again.
		return in, fmt.Errorf("inbox: the raw message of e-mail %s: %v", emailID, err)
	}
	in.mc, err = readMailContext(ctx, q, orgID, in.email.WorkspaceID, in.email.InboxID)
	switch {
	case err == nil:
		in.inboxFound = true
	case errors.Is(err, store.ErrNotFound):
		err = nil
	}
	return in, err
}

// context is the row as a mailContext.
func (r mailContextRow) context() (mailContext, error) {
	if err := r.Inbox.decode(); err != nil {
		return mailContext{}, err
	}
	mc := mailContext{inbox: r.Inbox, tenant: r.tenantSnapshot}
	if r.SettingsFound == 1 && r.UsageMonth == usageMonth(store.Now()) && r.SettingsUpdatedAt != nil {
		mc.settingsOK = true
		mc.settings = workspaceSettings{
			WorkspaceID: r.Inbox.WorkspaceID, OrganizationID: r.Inbox.OrganizationID, Source: r.Source,
			MonthlyCostLimit: r.MonthlyCostLimit, MonthlyEmailsLimit: r.MonthlyEmailsLimit, UsageMonth: r.UsageMonth,
			MonthlyCostUsed: r.MonthlyCostUsed, MonthlyEmailsUsed: r.MonthlyEmailsUsed,
			CustomMetadataJSON: r.CustomMetadataJSON, UpdatedAt: *r.SettingsUpdatedAt,
		}
	}
	return mc, nil
}

// aliasColumns qualifies each name of a comma-separated column list with
// a table alias and names it with a prefix ("i.id AS \"inbox.id\""), the
// way sqlx fills a struct field tagged with the prefix.
func aliasColumns(table, prefix, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		parts[i] = table + p + ` AS "` + prefix + p + `"`
	}
	return strings.Join(parts, ", ")
}
