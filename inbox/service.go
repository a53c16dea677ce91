package inbox

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/confirm"
	"github.com/kobana/kobana-mcp/platform/idempotency"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/rest"
)

// service is what every Inbox operation, the mail intake and the
// background jobs share: one per listener.
type service struct {
	db       *store.DB
	accounts *accounts.Store
	nonces   *confirm.Nonces
	jobs     *jobs.Queue
	hooks    *webhooks.Service
	cfg      Config
	log      *slog.Logger
	// idempotency keeps the API's X-Idempotency-Key answers; the purge job
	// drops expired ones.
	idempotency *idempotency.Store

	// smtp is the running SMTP intake (intake_smtp.go), nil when stopped.
	smtpMu sync.Mutex
	smtp   *smtpIntake
}

// scope is who is calling and on which workspace: every query of an
// operation filters on both.
type scope struct {
	Identity    *identity.Identity
	OrgID       string
	Workspace   accounts.Workspace
	WorkspaceID string
}

// workspaceScope resolves the caller's workspace: the one the token is
// bound to, else the X-Workspace-Id header (id or external id), else the
// organization's only workspace. Another organization's workspace, or a
// deleted one, is 404 (product-decisions §3).
func (s *service) workspaceScope(ctx context.Context) (scope, error) {
	id := identity.From(ctx)
	if id == nil {
		return scope{}, rest.Forbidden("no identity")
	}
	w, err := s.accounts.SelectWorkspace(ctx, id.OrganizationID, id.WorkspaceID, rest.RequestHeader(ctx).Get("X-Workspace-Id"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return scope{}, rest.NotFound("workspace")
	case errors.Is(err, accounts.ErrWorkspaceRequired):
		return scope{}, rest.Validation("the organization has several workspaces: pick one with the X-Workspace-Id header", rest.FieldError{Field: "X-Workspace-Id", Message: "is required when the organization has several workspaces"})
	case errors.Is(err, accounts.ErrWorkspaceMismatch):
		return scope{}, rest.NotFound("workspace")
	case err != nil:
		return scope{}, err
	}
	return scope{Identity: id, OrgID: id.OrganizationID, Workspace: w, WorkspaceID: w.ID}, nil
}
