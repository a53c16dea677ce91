package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

const inboxColumns = `id, organization_id, workspace_id, external_id, agent_id, label, email, status,
	allowed_recipients, filters, attachments_allow, attachments_max_file_number,
	attachments_max_file_size, attachments_max_total_size, created_at, updated_at`

// decode fills the fields kept as JSON, so no reader of a record parses
// them itself. Both are never nil: an empty list is written as [].
func (r *inboxRecord) decode() error {
	r.AllowedRecipients, r.Filters = nil, nil
	if r.AllowedRecipientsJSON != "" {
		if err := json.Unmarshal([]byte(r.AllowedRecipientsJSON), &r.AllowedRecipients); err != nil {
			return fmt.Errorf("inbox %s: allowed_recipients: %w", r.ID, err)
		}
	}
	if r.FiltersJSON != "" {
		if err := json.Unmarshal([]byte(r.FiltersJSON), &r.Filters); err != nil {
			return fmt.Errorf("inbox %s: filters: %w", r.ID, err)
		}
	}
	if r.AllowedRecipients == nil {
		r.AllowedRecipients = []string{}
	}
	if r.Filters == nil {
		r.Filters = []inboxFilter{}
	}
	return nil
}

// encode writes the decoded lists back into their JSON columns before a
// write.
func (r *inboxRecord) encode() {
	if r.AllowedRecipients == nil {
		r.AllowedRecipients = []string{}
	}
	if r.Filters == nil {
		r.Filters = []inboxFilter{}
	}
	a, _ := json.Marshal(r.AllowedRecipients)
	f, _ := json.Marshal(r.Filters)
	r.AllowedRecipientsJSON, r.FiltersJSON = string(a), string(f)
}

// getInboxWhere reads one live inbox matching the condition.
func getInboxWhere(ctx context.Context, q store.Querier, where string, args ...any) (inboxRecord, error) {
	var r inboxRecord
	if err := q.Get(ctx, &r, `SELECT `+inboxColumns+` FROM inboxes WHERE deleted_at IS NULL AND `+where, args...); err != nil {
		return r, err
	}
	return r, r.decode()
}

// inboxByAddress finds the live inbox that receives mail for address, in
// any organization (addresses are unique across all of them); none is
// store.ErrNotFound. The intake calls it for every recipient.
func inboxByAddress(ctx context.Context, q store.Querier, address string) (inboxRecord, error) {
	return getInboxWhere(ctx, q, `email = ?`, strings.ToLower(strings.TrimSpace(address)))
}

// byRef is the condition of a lookup by id or external_id inside one
// workspace; an id wins over another row's equal external_id.
const byRef = `organization_id = ? AND workspace_id = ? AND (id = ? OR external_id = ?)
	ORDER BY CASE WHEN id = ? THEN 0 ELSE 1 END LIMIT 1`

// getInbox finds a live inbox of the workspace by id or external_id.
func getInbox(ctx context.Context, q store.Querier, orgID, workspaceID, ref string) (inboxRecord, error) {
	return getInboxWhere(ctx, q, byRef, orgID, workspaceID, ref, ref, ref)
}

// lockInbox is getInbox for a transaction that will rewrite the row: on
// PostgreSQL (READ COMMITTED) the row is locked until the transaction
// ends, so two concurrent read-modify-writes (two recipients added at once)
// cannot lose one another's change; SQLite's transactions are serialized
// already.
func lockInbox(ctx context.Context, tx *store.Tx, orgID, workspaceID, ref string) (inboxRecord, error) {
	return getInboxWhere(ctx, tx, byRef+forUpdate(tx), orgID, workspaceID, ref, ref, ref)
}

// forUpdate is the row lock clause of the engine ("" on SQLite).
func forUpdate(q store.Querier) string {
	if q.Dialect() == store.Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// inboxListFilter narrows inboxes_list.
type inboxListFilter struct {
	Status  string
	AgentID string
	Q       string
	After   string
	Limit   int
}

// listInboxes returns up to f.Limit+1 live inboxes of the workspace after
// the cursor, oldest first.
func listInboxes(ctx context.Context, q store.Querier, orgID, workspaceID string, f inboxListFilter) ([]inboxRecord, error) {
	where := []string{"deleted_at IS NULL", "organization_id = ?", "workspace_id = ?"}
	args := []any{orgID, workspaceID}
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.AgentID != "" {
		where = append(where, "agent_id = ?")
		args = append(args, f.AgentID)
	}
	if f.Q != "" {
		where = append(where, `(LOWER(label) LIKE ? ESCAPE '\' OR email LIKE ? ESCAPE '\')`)
		pat := "%" + likeEscape(strings.ToLower(f.Q)) + "%"
		args = append(args, pat, pat)
	}
	if f.After != "" {
		where = append(where, "id > ?")
		args = append(args, f.After)
	}
	args = append(args, f.Limit+1)
	rows := []inboxRecord{}
	if err := q.Select(ctx, &rows, `SELECT `+inboxColumns+` FROM inboxes WHERE `+strings.Join(where, " AND ")+` ORDER BY id LIMIT ?`, args...); err != nil {
		return nil, err
	}
	for i := range rows {
		if err := rows[i].decode(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// likeEscape makes text match itself in a LIKE pattern with ESCAPE '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// insertInbox writes a new inbox. A live inbox with the same external_id
// in the workspace, or the same address anywhere, is store.ErrConflict.
func insertInbox(ctx context.Context, q store.Querier, r *inboxRecord) error {
	r.encode()
	_, err := q.Exec(ctx, `INSERT INTO inboxes (`+inboxColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.OrganizationID, r.WorkspaceID, r.ExternalID, r.AgentID, r.Label, r.Email, r.Status,
		r.AllowedRecipientsJSON, r.FiltersJSON, r.AttachmentsAllow, r.AttachmentsMaxFileNumber,
		r.AttachmentsMaxFileSize, r.AttachmentsMaxTotalSize, r.CreatedAt, r.UpdatedAt)
	return err
}

// updateInbox rewrites every changeable column of a live inbox.
func updateInbox(ctx context.Context, q store.Querier, r *inboxRecord) error {
	r.encode()
	return store.ExpectOne(q.Exec(ctx, `UPDATE inboxes SET external_id = ?, agent_id = ?, label = ?, email = ?, status = ?,
		allowed_recipients = ?, filters = ?, attachments_allow = ?, attachments_max_file_number = ?,
		attachments_max_file_size = ?, attachments_max_total_size = ?, updated_at = ?
		WHERE id = ? AND organization_id = ? AND workspace_id = ? AND deleted_at IS NULL`,
		r.ExternalID, r.AgentID, r.Label, r.Email, r.Status, r.AllowedRecipientsJSON, r.FiltersJSON,
		r.AttachmentsAllow, r.AttachmentsMaxFileNumber, r.AttachmentsMaxFileSize, r.AttachmentsMaxTotalSize,
		r.UpdatedAt, r.ID, r.OrganizationID, r.WorkspaceID))
}

// deleteInbox soft-deletes a live inbox: it stops receiving mail, and its
// address and external_id are free again.
func deleteInbox(ctx context.Context, q store.Querier, orgID, workspaceID, id string) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE inboxes SET deleted_at = ? WHERE id = ? AND organization_id = ? AND workspace_id = ? AND deleted_at IS NULL`,
		store.Now(), id, orgID, workspaceID))
}
