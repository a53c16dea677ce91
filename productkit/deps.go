// Package productkit assembles a product: a product declares itself once
// as a Spec (spec.go) in its own folder, and Assemble builds its listener —
// REST API, MCP endpoint, authorization, rate limits, confirmation — the
// same way for every product. It sits above the foundations (platform/…)
// and oauth; the binary only lists specs (docs/decisions.md "Layers").
package productkit

import (
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/confirm"
	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// MCPPath is where every product serves its MCP endpoint.
const MCPPath = httpx.MCPPath

// Deps are the shared services a product is built with.
type Deps struct {
	// DataDir is where the product keeps its files.
	DataDir string
	// PublicURL is the product listener's public base URL
	// ("https://mcp.inbox.example.com"); it defines the server's own origin.
	PublicURL string
	// AllowedOrigins are extra browser origins allowed to call the endpoint.
	AllowedOrigins []string
	// States seals multi-round-trip state with the secret every replica
	// shares.
	States *mcp.StateSealer
	// Logger is the process logger.
	Logger *slog.Logger
	// DB is the shared database.
	DB *store.DB
	// Issuer is the authorization server the product's tokens must come
	// from: its own public URL for the built-in server.
	Issuer string
	// Keys verify access tokens. Nil runs the product with no
	// authentication at all, which only tests of the transport do.
	Keys oauth.KeySource
	// Roles looks up a person's current role in an organization: the
	// resource servers' check of every request, and the role of calls a
	// product makes in-process as a person (Kadu's executions). The binary
	// fills it from the authorization server's store in serve and worker
	// alike, so no product reads the auth tables itself.
	Roles oauth.RoleLookup
	// Changes is the process's watch of identity and tenancy changes
	// (accounts.ChangeWatch): a product's accounts.Store keeps its
	// workspace picks while the watch trusts them. Nil reads them on every
	// request.
	Changes *accounts.ChangeWatch
	// RateLimits counts the product's requests per token and per
	// organization (platform/ratelimit); nil leaves them unlimited. The
	// product passes Auth.RateLimiter() to its MCP endpoint; its API uses
	// it through Auth.AuthorizeAPI.
	RateLimits RateLimits
	// AuthServer is the built-in authorization server on the product's
	// listener, whose sign-in and sessions the product's own pages (an
	// approval page) use; nil with an external issuer, and in tests of the
	// transport.
	AuthServer *server.Server
	// Jobs is the process's durable job queue (platform/jobs), shared by
	// the products; nil in tests of the transport.
	Jobs *jobs.Queue
	// Approvals is the one runner of approved calls on Jobs
	// (approval.NewRunners), shared by every product's approval policy:
	// a queue has one worker per job kind, and every product's approvals
	// run as approval.run jobs. The binary makes one per process; Assemble
	// makes one when it is nil and Jobs is set (a test serving one product
	// on its own queue).
	Approvals *approval.Runners
	// Secret is the deployment secret every replica shares (the first of
	// --state-secrets); products derive keys from it to seal what they
	// store (webhook signing secrets and credentials). Nil in tests of the
	// transport, where such data is stored as it is.
	Secret []byte
	// Webhooks are the deployment's webhook delivery settings, the same
	// for every product (platform/webhooks).
	Webhooks WebhookSettings
	// Tools are the MCP tools of every product running in this deployment,
	// which the binary adds once each product is assembled (toolreg): what
	// Kadu's executions call in-process, as the person who started them,
	// without Kadu importing another product. Read it when a call is made,
	// not while building (it fills after Build); nil in tests of the
	// transport and catalog snapshots.
	Tools *toolreg.Registry
	// Places names the deployment's issuers and resources — every
	// product's — so a token refused for belonging to another product or
	// resource says whose it is (oauth.TokenHints). Read when a token is
	// refused, not while building: the binary fills it as products start.
	// Nil names nothing.
	Places oauth.Places
	// Tracer is the process's tracer provider (platform/tracing), nil
	// when tracing is off: the MCP endpoint's requests, the in-process
	// routes its tools run and the product's own entry points (the
	// Inbox's SMTP intake) are traced with it.
	Tracer trace.TracerProvider
}

// WebhookSettings are how every product's webhooks are delivered.
type WebhookSettings struct {
	// AllowPrivateTargets lets webhooks reach loopback and private
	// addresses over http too: development only.
	AllowPrivateTargets bool
	// Retries are the delays between delivery attempts (nil: the
	// platform's default).
	Retries []time.Duration
}

// Nonces is the database's store of used confirmations of destructive
// tools, shared by every replica, or nil without a database (tests of the
// transport, where the endpoint keeps them in memory).
func (d Deps) Nonces() *confirm.Nonces {
	if d.DB == nil {
		return nil
	}
	return confirm.New(d.DB, confirm.Options{Logger: d.Logger})
}

// ProductAuth builds a product's resource servers, or nil when the
// product runs without authentication (no Keys). key is the product's
// --product value, named in the refusal of a token for another product
// or resource ("" names nothing).
func (d Deps) ProductAuth(key, apiBase string, scopes []string, name string) *Auth {
	if d.Keys == nil {
		return nil
	}
	return NewAuth(AuthConfig{PublicURL: d.PublicURL, APIBase: apiBase, Issuer: d.Issuer, Keys: d.Keys, Scopes: scopes, Roles: d.Roles, Name: name, Limits: d.RateLimits,
		Key: key, Places: d.Places})
}

// Mux mounts a product's MCP endpoint and API on one handler.
func Mux(mcpHandler http.Handler, apiBase string, api http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(MCPPath, mcpHandler)
	if api != nil {
		// withResponseHeader lets AuthorizeAPI write the rate-limit
		// headers of direct API calls (ratelimits.go).
		mux.Handle(apiBase+"/", withResponseHeader(api))
	}
	return mux
}

// Protect gives a product's MCP endpoint what every product's needs: the
// resource server's authorization, the shared confirmation nonces and the
// rate limiter. A product without auth (transport tests) stays open.
func (d Deps) Protect(auth *Auth, opts *mcp.Options) {
	opts.Authorizer = auth.Authorizer()
	if nonces := d.Nonces(); nonces != nil {
		opts.Confirm.Nonces = nonces
	}
	opts.RateLimiter = auth.RateLimiter() // per token and organization (platform/ratelimit)
}
