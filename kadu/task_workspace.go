package kadu

import (
	"context"
	"errors"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// A task bound to a workspace (docs/decisions.md "Kadu: tasks bound to a
// workspace"): its workspace_id is the Inbox workspace every in-process
// tool call of its executions acts in — the runtime hands it to the
// registry (toolreg.Call.WorkspaceID), which puts it in the identity the
// way a token bound to a workspace carries one, so the Inbox's own
// tenancy (restkit.SelectWorkspace) picks it and checks it still is a live
// workspace of the organization at every call. Workspaces belong to the
// organization and every member's role applies in all of them (platform
// identity), so a person may bind a task to any live workspace of their
// organization and to nothing else.

// taskWorkspace checks a workspace_id given to kadu_tasks_create or
// kadu_tasks_update (an id or an external id) and answers the id to store;
// "" is no workspace. Another organization's workspace, a deleted or an
// unknown one are the same validation error: nothing tells them apart.
func (s *service) taskWorkspace(ctx context.Context, orgID, ref string) (*string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, nil
	}
	w, err := s.accounts.GetWorkspace(ctx, orgID, ref)
	if errors.Is(err, store.ErrNotFound) {
		w, err = s.accounts.GetWorkspaceByExternalID(ctx, orgID, ref)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, rest.Validation("the task is invalid", rest.FieldError{Field: "workspace_id", Message: "is not a workspace of the organization"})
	}
	if err != nil {
		return nil, err
	}
	return &w.ID, nil
}
