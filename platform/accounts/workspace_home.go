package accounts

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	w, _, err := s.HomeWithOrganization(ctx, orgID)
	return w, err
}

// HomeWithOrganization is HomeWorkspace and its organization read in one
// statement: what an event of an organization-wide product needs (the
// workspace its webhooks are under, and the organization's name in its
// data). Events are stored in the transaction of the change they report,
// where HomeWorkspace's cache is not used, so each event read the two rows
// in two statements, on PostgreSQL two round trips inside the
// transaction — the step runner's two events a message among them
// (docs/performance.md, "The step runner's statements"). It is also
// HomeWorkspace's read when the cache has no answer: one statement for
// the home, wherever it is asked.
func (s *Store) HomeWithOrganization(ctx context.Context, orgID string) (Workspace, Organization, error) {
	var row struct {
		Workspace
		OrgName      string    `db:"org_name"`
		OrgCreatedAt time.Time `db:"org_created_at"`
	}
	err := s.q.Get(ctx, &row, `SELECT w.id, w.organization_id, w.external_id, w.label, w.email_prefix, w.created_at,
		o.name AS org_name, o.created_at AS org_created_at
		FROM workspaces w JOIN organizations o ON o.id = w.organization_id
		WHERE w.organization_id = ? AND w.deleted_at IS NULL ORDER BY w.created_at, w.id LIMIT 1`, orgID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Workspace{}, Organization{}, fmt.Errorf("%w: the organization has no workspace", store.ErrNotFound)
		}
		return Workspace{}, Organization{}, err
	}
	return row.Workspace, Organization{ID: row.OrganizationID, Name: row.OrgName, CreatedAt: row.OrgCreatedAt}, nil
}
