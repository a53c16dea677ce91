package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

// ErrWorkspaceRequired means the organization has several workspaces, the
// token is bound to none, and the request did not pick one with
// X-Workspace-Id.
var ErrWorkspaceRequired = errors.New("accounts: the organization has several workspaces; pick one with the X-Workspace-Id header")

// ErrWorkspaceMismatch means the request picked a workspace other than the
// one its token is bound to.
var ErrWorkspaceMismatch = errors.New("accounts: the token is bound to another workspace")

// SelectWorkspace decides which workspace of the caller's organization a
// request acts on. A token bound to a workspace acts on that one (a
// different X-Workspace-Id is refused); otherwise X-Workspace-Id (an id or
// an external id) picks one, and may be omitted only when the organization
// has exactly one. A workspace of another organization, or a deleted one,
// is store.ErrNotFound: existence is never revealed across tenants.
func (s *Store) SelectWorkspace(ctx context.Context, orgID, tokenWorkspace, header string) (Workspace, error) {
	header = strings.TrimSpace(header)
	if s.workspaces == nil {
		return s.selectWorkspace(ctx, orgID, tokenWorkspace, header)
	}
	k := workspaceKey{org: orgID, token: tokenWorkspace, header: header}
	w, ok, stamp := s.workspaces.Get(k)
	if ok {
		return w, nil
	}
	w, err := s.selectWorkspace(ctx, orgID, tokenWorkspace, header)
	if err == nil {
		s.workspaces.Put(k, w, stamp)
	}
	return w, err
}

// workspaceKey is what a pick depends on: the organization, the token's
// workspace and the X-Workspace-Id value (trimmed); home marks
// HomeWorkspace's answer, which depends on the organization alone.
type workspaceKey struct {
	org, token, header string
	home               bool
}

func (s *Store) selectWorkspace(ctx context.Context, orgID, tokenWorkspace, header string) (Workspace, error) {
	if tokenWorkspace != "" {
		w, err := s.GetWorkspace(ctx, orgID, tokenWorkspace)
		if err != nil {
			return Workspace{}, err
		}
		if header != "" && header != w.ID && header != w.ExternalID {
			return Workspace{}, ErrWorkspaceMismatch
		}
		return w, nil
	}
	if header != "" {
		w, err := s.GetWorkspace(ctx, orgID, header)
		if errors.Is(err, store.ErrNotFound) {
			w, err = s.GetWorkspaceByExternalID(ctx, orgID, header)
		}
		return w, err
	}
	// Two rows tell "exactly one" from "several": the answer does not
	// grow with the organization's workspaces.
	all := []Workspace{}
	err := s.q.Select(ctx, &all, "SELECT "+workspaceColumns+" FROM workspaces WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at, id LIMIT 2", orgID)
	if err != nil {
		return Workspace{}, err
	}
	switch len(all) {
	case 1:
		return all[0], nil
	case 0:
		return Workspace{}, fmt.Errorf("%w: the organization has no workspace", store.ErrNotFound)
	}
	return Workspace{}, ErrWorkspaceRequired
}
