package inbox

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/store"
)

const agentColumns = `id, organization_id, workspace_id, external_id, label, llm_model,
	system_message, skills_repo, created_at, updated_at`

// getAgent finds a live agent of the workspace by id or external_id; none
// (or another workspace's) is store.ErrNotFound.
func getAgent(ctx context.Context, q store.Querier, orgID, workspaceID, ref string) (agentRecord, error) {
	var a agentRecord
	err := q.Get(ctx, &a, `SELECT `+agentColumns+` FROM inbox_agents
		WHERE deleted_at IS NULL AND organization_id = ? AND workspace_id = ? AND (id = ? OR external_id = ?)
		ORDER BY CASE WHEN id = ? THEN 0 ELSE 1 END LIMIT 1`, orgID, workspaceID, ref, ref, ref)
	return a, err
}

// listAgents returns up to limit+1 live agents of the workspace after the
// cursor, oldest first.
func listAgents(ctx context.Context, q store.Querier, orgID, workspaceID, after string, limit int) ([]agentRecord, error) {
	rows := []agentRecord{}
	err := q.Select(ctx, &rows, `SELECT `+agentColumns+` FROM inbox_agents
		WHERE deleted_at IS NULL AND organization_id = ? AND workspace_id = ? AND id > ? ORDER BY id LIMIT ?`,
		orgID, workspaceID, after, limit+1)
	return rows, err
}

// insertAgent writes a new agent; a live agent of the workspace with the
// same external_id is store.ErrConflict.
func insertAgent(ctx context.Context, q store.Querier, a *agentRecord) error {
	_, err := q.Exec(ctx, `INSERT INTO inbox_agents (`+agentColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.OrganizationID, a.WorkspaceID, a.ExternalID, a.Label, a.LLMModel, a.SystemMessage, a.SkillsRepo, a.CreatedAt, a.UpdatedAt)
	return err
}

// updateAgent rewrites every changeable column of a live agent.
func updateAgent(ctx context.Context, q store.Querier, a *agentRecord) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE inbox_agents SET external_id = ?, label = ?, llm_model = ?, system_message = ?, skills_repo = ?, updated_at = ?
		WHERE id = ? AND organization_id = ? AND workspace_id = ? AND deleted_at IS NULL`,
		a.ExternalID, a.Label, a.LLMModel, a.SystemMessage, a.SkillsRepo, a.UpdatedAt, a.ID, a.OrganizationID, a.WorkspaceID))
}

// errAgentInUse is the answer to deleting an agent live inboxes still
// use: deleting it would leave them without processing.
type errAgentInUse struct{ inboxes int }

func (e errAgentInUse) Error() string {
	if e.inboxes == 1 {
		return "1 live inbox uses this agent: give it another agent (or none) before deleting this one"
	}
	return fmt.Sprintf("%d live inboxes use this agent: give them another agent (or none) before deleting this one", e.inboxes)
}

// deleteAgent soft-deletes a live agent no live inbox uses. The row is
// marked first, which on PostgreSQL locks it, so an inbox being given this
// agent concurrently (agentForInbox share-locks it) is either counted here
// or fails to find the agent afterwards.
func deleteAgent(ctx context.Context, tx *store.Tx, orgID, workspaceID, id string) error {
	if err := store.ExpectOne(tx.Exec(ctx, `UPDATE inbox_agents SET deleted_at = ? WHERE id = ? AND organization_id = ? AND workspace_id = ? AND deleted_at IS NULL`,
		store.Now(), id, orgID, workspaceID)); err != nil {
		return err
	}
	n, err := inboxesUsingAgent(ctx, tx, orgID, id)
	if err != nil {
		return err
	}
	if n > 0 {
		return errAgentInUse{inboxes: n}
	}
	return nil
}

// inboxesUsingAgent counts the live inboxes of orgID that agentID
// processes: an agent in use is not deleted.
func inboxesUsingAgent(ctx context.Context, q store.Querier, orgID, agentID string) (int, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM inboxes WHERE agent_id = ? AND organization_id = ? AND deleted_at IS NULL`, agentID, orgID)
	return n, err
}

// lockAgent is getAgent for a transaction that will rewrite the row (see
// lockInbox).
func lockAgent(ctx context.Context, tx *store.Tx, orgID, workspaceID, ref string) (agentRecord, error) {
	var a agentRecord
	err := tx.Get(ctx, &a, `SELECT `+agentColumns+` FROM inbox_agents WHERE deleted_at IS NULL AND `+byRef+forUpdate(tx),
		orgID, workspaceID, ref, ref, ref)
	return a, err
}

// shareAgent reads a live agent by reference and, on PostgreSQL,
// share-locks its row until the transaction ends (see agentForInbox).
func shareAgent(ctx context.Context, tx *store.Tx, orgID, workspaceID, ref string) (agentRecord, error) {
	lock := ""
	if tx.Dialect() == store.Postgres {
		lock = " FOR SHARE"
	}
	var a agentRecord
	err := tx.Get(ctx, &a, `SELECT `+agentColumns+` FROM inbox_agents
		WHERE deleted_at IS NULL AND `+byRef+lock, orgID, workspaceID, ref, ref, ref)
	return a, err
}
