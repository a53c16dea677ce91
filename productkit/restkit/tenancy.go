package restkit

import (
	"context"
	"errors"
	"github.com/kobana/kobana-mcp/productkit/toolreg"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Tenant is who is calling and on what: every query of an operation
// filters on its organization and workspace.
type Tenant struct {
	// Identity is the verified caller.
	Identity *identity.Identity
	// OrgID is the caller's organization.
	OrgID string
	// Workspace is the workspace the request acts on.
	Workspace accounts.Workspace
	// WorkspaceID is Workspace.ID.
	WorkspaceID string
}

// Tenancy resolves the tenant of the request an operation handler is
// answering, or the error to answer. A product chooses one for its API:
// WorkspaceTenancy when its data lives in workspaces the caller picks (the
// Inbox), OrganizationTenancy when the organization is the only tenant
// (Dunning, Kadu).
type Tenancy func(ctx context.Context) (Tenant, error)

// WorkspaceTenancy resolves the workspace the way the Inbox's API
// documents it (docs/inbox.md "What the Inbox offers"): the one the token is
// bound to, else the X-Workspace-Id header (id or external id), required
// when the organization has several. Another organization's workspace, a
// deleted one, or one other than the token's is 404: existence is never
// revealed across tenants.
func WorkspaceTenancy(acc *accounts.Store) Tenancy {
	return func(ctx context.Context) (Tenant, error) {
		return SelectWorkspace(ctx, acc, rest.RequestHeader(ctx).Get("X-Workspace-Id"))
	}
}

// SelectWorkspace is WorkspaceTenancy with the header's value given, for
// raw handlers, which read their own request.
func SelectWorkspace(ctx context.Context, acc *accounts.Store, header string) (Tenant, error) {
	id := identity.From(ctx)
	if id == nil {
		return Tenant{}, rest.Forbidden("no identity")
	}
	w, err := acc.SelectWorkspace(ctx, id.OrganizationID, id.WorkspaceID, header)
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, accounts.ErrWorkspaceMismatch):
		return Tenant{}, rest.NotFound("workspace")
	case errors.Is(err, accounts.ErrWorkspaceRequired) && id.Issuer == toolreg.Issuer:
		// An in-process call on a person's behalf (a Kadu task's
		// execution) has no header to send: its task names the workspace.
		return Tenant{}, rest.Validation("the organization has several workspaces and the task making this call is bound to none: set the task's workspace_id (kadu_tasks_update) to the workspace it acts in",
			rest.FieldError{Field: "workspace_id", Message: "is required when the organization has several workspaces"})
	case errors.Is(err, accounts.ErrWorkspaceRequired):
		return Tenant{}, rest.Validation("the organization has several workspaces: pick one with the X-Workspace-Id header",
			rest.FieldError{Field: "X-Workspace-Id", Message: "is required when the organization has several workspaces"})
	case err != nil:
		return Tenant{}, err
	}
	return Tenant{Identity: id, OrgID: id.OrganizationID, Workspace: w, WorkspaceID: w.ID}, nil
}

// OrganizationTenancy is the tenancy of a product whose only tenant is
// the caller's organization: no header picks anything. Rows the platform
// keeps per workspace (webhooks, system events) are kept under the
// organization's home workspace, its oldest live one — the default every
// organization is created with (platform/accounts) — so the product's
// emitters find the same one with HomeWorkspace.
func OrganizationTenancy(acc *accounts.Store) Tenancy {
	return func(ctx context.Context) (Tenant, error) {
		id := identity.From(ctx)
		if id == nil {
			return Tenant{}, rest.Forbidden("no identity")
		}
		w, err := HomeWorkspace(ctx, acc, id.OrganizationID)
		if err != nil {
			return Tenant{}, err
		}
		return Tenant{Identity: id, OrgID: id.OrganizationID, Workspace: w, WorkspaceID: w.ID}, nil
	}
}

// HomeWorkspace is the workspace an organization-wide product keeps its
// per-workspace rows under (see OrganizationTenancy); an organization
// without a live workspace is 404.
//
// It is accounts.Store.HomeWorkspace, which keeps the answer while the
// process's watch of identity and tenancy changes trusts it: every
// signed-in request of those products asks for it (docs/decisions.md,
// "Identity read cache").
func HomeWorkspace(ctx context.Context, acc *accounts.Store, orgID string) (accounts.Workspace, error) {
	w, err := acc.HomeWorkspace(ctx, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return accounts.Workspace{}, rest.NotFound("organization")
	}
	return w, err
}

// EventHome is what an organization-wide product's event needs, read in
// one statement inside the event's transaction: the home workspace its
// webhooks are under (404 as HomeWorkspace) and the organization as the
// event's data names it ({id, name}).
func EventHome(ctx context.Context, acc *accounts.Store, orgID string) (accounts.Workspace, map[string]any, error) {
	w, o, err := acc.HomeWithOrganization(ctx, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return accounts.Workspace{}, nil, rest.NotFound("organization")
	}
	if err != nil {
		return accounts.Workspace{}, nil, err
	}
	return w, map[string]any{"id": o.ID, "name": o.Name}, nil
}

// ReadItem is the body of every "get one" operation: resolve the caller's
// tenant, look the item up inside it, and answer it as the API shows it
// ({"data": …}). An item that is not there for this caller — missing,
// deleted, or another organization's — is 404 naming what was asked for,
// never 403 (docs/inbox.md "What the Inbox offers": other organizations' ids
// answer 404).
func ReadItem[R any, J any](ctx context.Context, tenancy Tenancy, what string, lookup func(t Tenant) (R, error), show func(R) J) (*rest.Response, error) {
	t, err := tenancy(ctx)
	if err != nil {
		return nil, err
	}
	r, err := lookup(t)
	if errors.Is(err, store.ErrNotFound) {
		return nil, rest.NotFound(what)
	}
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": show(r)}), nil
}
