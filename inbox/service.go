package inbox

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/confirm"
	"github.com/kobana/kobana-mcp/platform/idempotency"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// service is what every Inbox operation, the mail intake and the
// background jobs share: one per listener. The SMTP listener is not part
// of it: smtpIntake (intake_smtp.go) holds it, built beside the service.
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
	// tracer starts the trace of an e-mail received over SMTP
	// (intake_trace.go); nil when tracing is off.
	tracer trace.Tracer
	// limits counts each recipient of an SMTP delivery against its
	// organization's write limit (intake_smtp.go); nil: no limits.
	limits productkit.RateLimits
}

// logger is the service's log; a service built without one (tests) logs
// nothing.
func (s *service) logger() *slog.Logger {
	if s.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.log
}

// scope is who is calling and on which workspace: every query of an
// operation filters on both.
type scope = restkit.Tenant

// workspaceScope resolves the caller's workspace: the one the token is
// bound to, else the X-Workspace-Id header (id or external id), else the
// organization's only workspace. Another organization's workspace, or a
// deleted one, is 404 (restkit.WorkspaceTenancy).
func (s *service) workspaceScope(ctx context.Context) (scope, error) {
	return restkit.WorkspaceTenancy(s.accounts)(ctx)
}
