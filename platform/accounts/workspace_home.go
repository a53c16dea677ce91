package accounts

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/store"
)

// HomeWorkspace is the organization's oldest live workspace — the default
// every organization is created with — where a product whose only tenant
// is the organization (Dunning, Kadu) keeps the rows the platform keeps
// per workspace (productkit/restkit OrganizationTenancy). An organization
// without a live workspace is store.ErrNotFound.
//
// Every signed-in request of those products asks for it, so a Store with
// a watch keeps it like SelectWorkspace's picks, under the same rules
// (docs/decisions.md, "Identity read cache"): every write of the
// workspaces table notes a change, other replicas hear it on PostgreSQL,
// and nothing is trusted past the watch's TTL (1 s). One row is read.
func (s *Store) HomeWorkspace(ctx context.Context, orgID string) (Workspace, error) {
	if s.workspaces == nil {
		return s.homeWorkspace(ctx, orgID)
	}
	k := workspaceKey{org: orgID, home: true}
	w, ok, stamp := s.workspaces.Get(k)
	if ok {
		return w, nil
	}
	w, err := s.homeWorkspace(ctx, orgID)
	if err == nil {
		s.workspaces.Put(k, w, stamp)
	}
	return w, err
}

func (s *Store) homeWorkspace(ctx context.Context, orgID string) (Workspace, error) {
	var w Workspace
	err := s.q.Get(ctx, &w, "SELECT "+workspaceColumns+" FROM workspaces WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at, id LIMIT 1", orgID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Workspace{}, fmt.Errorf("%w: the organization has no workspace", store.ErrNotFound)
		}
		return Workspace{}, err
	}
	return w, nil
}
