package productkit

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/tracing"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/rest"
)

// Spec is everything a product is, declared in the product's own package:
// its name and listener, its settings, its migrations and how it builds
// its API, catalog, jobs and pages. The binary holds one list of specs
// and nothing product-specific (docs/decisions.md "A product is one
// folder"); adding a product touches its folder and that one line.
type Spec struct {
	// Key names the product in flags, environment variables and the data
	// directory ("inbox": --inbox-addr, KOBANA_INBOX_ADDR, <data-dir>/inbox).
	Key string
	// Name is the MCP server name ("kobana-autonomous-inbox").
	Name string
	// Title is the human name ("Kobana Autonomous Inbox").
	Title string
	// Version is the server and API version.
	Version string
	// DefaultAddr is the listen address when none is configured.
	DefaultAddr string
	// APIBase is the REST API's path on the listener ("/api/v1").
	APIBase string
	// AllowedOrigins, when set, adds a --<key>-allowed-origins setting:
	// browser origins allowed on the MCP endpoint (the Inbox's seed lets
	// its deployment choose; Dunning and Kadu fix theirs).
	AllowedOrigins bool
	// ScopeDescriptions say, in plain words, what a person allows when
	// they grant each of the product's scopes (Scopes): the built-in
	// authorization server's consent page shows them, in its language
	// (Brazilian Portuguese or English, platform/pagetext). Every scope of
	// the product has one in both (catalogtest.Golden checks it); the oauth
	// packages know no product's scopes.
	ScopeDescriptions map[string]pagetext.Phrase
	// Migrations are the product's own goose SQL files, applied with the
	// platform's in one ordered run (store.DB.Migrate); nil: none. Their
	// version numbers share one sequence with the platform's.
	Migrations fs.FS
	// Settings declares the product's own settings on s, bound to the
	// product's typed configuration, and returns the check that validates
	// (and converts) them once parsed. Nil: the product has none.
	Settings func(s *Settings) (check func() error)
	// PagePaths are path prefixes of the product's own pages for people
	// beyond the approval pages (Kadu's "/executions/"), each ending in
	// "/": the built-in sign-in returns to them (oauth/server
	// Config.ReturnPaths), and nowhere else.
	PagePaths []string
	// Build declares the product on b. It must not need a connection:
	// with b.Deps.DB nil (catalog snapshots, generated docs) it still
	// declares every operation, resource and prompt.
	Build func(b *Builder) error
}

// ReturnPaths are the paths the built-in sign-in may send a person back
// to on s's listener: the approval pages and s's own (PagePaths).
func (s *Spec) ReturnPaths() []string {
	return append([]string{approval.PathPrefix}, s.PagePaths...)
}

// Builder is what a product's Build fills: the API it declares its
// operations on, and the parts of its listener beyond them.
type Builder struct {
	// Deps are the shared services (DB nil when only the catalog is
	// wanted).
	Deps Deps
	// Auth is the product's resource servers, nil without keys.
	Auth *Auth

	spec       *Spec
	api        *rest.API
	apiConfig  rest.Config
	bridgeOpts restbridge.Options
	mcpOptions func(Deps) mcp.Options
	extras     func(*restbridge.Bridge, []mcp.Tool) (mcp.Catalog, error)
	approvals  Approvals
	jobs       []func(*jobs.Queue)
	routes     []func(*http.ServeMux)
	listener   Listener
}

// API is the product's REST API, created on first use with the spec's
// name, version and base path, the product's authorization and cfg's
// other fields (body cap, idempotency, error codes) from the first call.
func (b *Builder) API(cfg rest.Config) *rest.API {
	if b.api == nil {
		cfg.Title = b.spec.Title + " API"
		cfg.Version = b.spec.Version
		cfg.BasePath = b.spec.APIBase
		cfg.Authorize = b.Auth.APIAuthorize()
		if cfg.Logger == nil {
			cfg.Logger = b.Deps.Logger
		}
		b.apiConfig = cfg
		b.api = rest.New(cfg)
	}
	return b.api
}

// MCP sets the endpoint's transport configuration (from the product's
// seed) and the bridge's options; the authorizer, nonces and rate limiter
// are added by Assemble.
func (b *Builder) MCP(options func(Deps) mcp.Options, bridge restbridge.Options) {
	b.mcpOptions = options
	b.bridgeOpts = bridge
}

// Catalog adds resources, resource templates, prompts and completions to
// the tools the API's operations make.
func (b *Builder) Catalog(extras func(bridge *restbridge.Bridge, tools []mcp.Tool) (mcp.Catalog, error)) {
	b.extras = extras
}

// Approvals sets how the product's approval link answers (approvals.go);
// a product that does not call it gets the default: the link inside the
// confirmation_required error.
func (b *Builder) Approvals(a Approvals) { b.approvals = a }

// Jobs registers the product's job workers and periodic jobs on a queue.
// serve, worker and tests all register through it, so every process knows
// the same kinds.
func (b *Builder) Jobs(register func(q *jobs.Queue)) { b.jobs = append(b.jobs, register) }

// Routes mounts the product's own pages and endpoints beside the MCP
// endpoint and the API (the Inbox's HTTP intake, Kadu's approval pages).
func (b *Builder) Routes(mount func(mux *http.ServeMux)) { b.routes = append(b.routes, mount) }

// Lifecycle adds to the product's own start, shutdown and announcement
// (see Listener). Called more than once (Dunning's embedded bureau and its
// Pix webhook listener), the starts run in order, the shutdowns in
// reverse order, and the announcements are joined; nil parts are skipped.
func (b *Builder) Lifecycle(start, shutdown func(context.Context) error, announce func() []string) {
	if prev := b.listener.Start; start != nil && prev != nil {
		b.listener.Start = func(ctx context.Context) error {
			if err := prev(ctx); err != nil {
				return err
			}
			return start(ctx)
		}
	} else if start != nil {
		b.listener.Start = start
	}
	if prev := b.listener.Shutdown; shutdown != nil && prev != nil {
		b.listener.Shutdown = func(ctx context.Context) error {
			return errors.Join(shutdown(ctx), prev(ctx))
		}
	} else if shutdown != nil {
		b.listener.Shutdown = shutdown
	}
	if prev := b.listener.Announce; announce != nil && prev != nil {
		b.listener.Announce = func() []string { return append(prev(), announce()...) }
	} else if announce != nil {
		b.listener.Announce = announce
	}
}

// Collect adds Prometheus collectors of the product's own.
func (b *Builder) Collect(c ...prometheus.Collector) {
	b.listener.Collectors = append(b.listener.Collectors, c...)
}

// Listener is one product served on its own listener (its own origin):
// the MCP endpoint at MCPPath and the REST API beside it.
type Listener struct {
	// Spec is what was built.
	Spec *Spec
	// Handler serves the whole listener.
	Handler http.Handler
	// API is the product's REST API.
	API *rest.API
	// MCP is the product's MCP endpoint.
	MCP *mcp.Handler
	// Catalog is what the endpoint lists.
	Catalog mcp.Catalog
	// Shutdown, when set, stops the product's background work and waits
	// for it until ctx ends; it is called after the listener stopped
	// serving.
	Shutdown func(ctx context.Context) error
	// Start, when set, starts the product's own listeners beyond HTTP (the
	// Inbox's SMTP intake) once the process is ready to serve.
	Start func(ctx context.Context) error
	// Announce, when set, returns lines the binary prints once the product
	// started ("… SMTP intake: …").
	Announce func() []string
	// Collectors are the product's own Prometheus metrics.
	Collectors []prometheus.Collector
	// Approvals is the product's approval policy (productkit/approval),
	// nil when the process cannot offer it: what `kobana-mcp approvals`
	// decides with, exactly as the page does.
	Approvals *approval.Policy
	// ErrorCodes is how the product's API spells its error codes (its
	// rest.Config.ErrorCodes; nil: the canonical lower-case ones). Front
	// gives it to what answers before the API does.
	ErrorCodes rest.ErrorCodes
}

// Front wraps what the binary puts in front of the listener's Handler —
// the overload guard, the drain, the limit on unauthenticated traffic —
// so that their refusals (platform/httpx.Refuse) spell error codes as the
// product's API does: every answer of an API has one style
// (docs/decisions.md "Error codes").
func (l *Listener) Front(h http.Handler) http.Handler {
	return httpx.WithErrorCodes(h, l.ErrorCodes)
}

// BaseContext is Front for a whole server, as its http.Server.BaseContext:
// every request the server reads starts with the product's spelling of
// error codes, at no cost per request (Front copies each request to add
// it). The binary's listeners use it; Front serves handlers that have no
// server of their own.
func (l *Listener) BaseContext(net.Listener) context.Context {
	return httpx.WithErrorCodesContext(context.Background(), l.ErrorCodes)
}

// build runs the spec's Build.
func (s *Spec) build(deps Deps) (*Builder, error) {
	b := &Builder{Deps: deps, spec: s}
	b.Auth = deps.ProductAuth(s.Key, s.APIBase, s.Scopes(), s.Title)
	if s.Build != nil {
		if err := s.Build(b); err != nil {
			return nil, err
		}
	}
	b.API(rest.Config{})
	if b.mcpOptions == nil {
		b.mcpOptions = func(Deps) mcp.Options { return mcp.Options{Name: s.Name, Title: s.Title, Version: s.Version} }
	}
	return b, nil
}

// Assemble builds the product's listener from its spec: the API, the MCP
// endpoint whose tools mirror it (authorized, confirmed and rate-limited
// like every product's), the protected resource metadata, the product's
// own routes, and its jobs on deps.Jobs. It is the one place those parts
// are put together, so no product writes it.
func Assemble(s *Spec, deps Deps) (*Listener, error) {
	b, err := s.build(deps)
	if err != nil {
		return nil, err
	}
	// The tools reach the API through the tracing of in-process routes
	// (nothing when tracing is off); REST clients reach it unwrapped.
	bridge := restbridge.New(tracing.Routes(deps.Tracer, b.api), b.bridgeOpts)
	tools := b.api.Tools(bridge)
	catalog := mcp.Catalog{Tools: tools}
	if b.extras != nil {
		extra, err := b.extras(bridge, tools)
		if err != nil {
			return nil, err
		}
		catalog.Resources, catalog.ResourceTemplates, catalog.Prompts = extra.Resources, extra.ResourceTemplates, extra.Prompts
	}
	opts := b.mcpOptions(deps)
	opts.Tracer = tracing.MCP(deps.Tracer)
	deps.Protect(b.Auth, &opts)
	approvals, err := b.approvalPolicy(tools)
	if err != nil {
		return nil, err
	}
	if approvals != nil && deps.AuthServer != nil {
		// A worker's policy (no sign-in) only runs approved calls; the
		// endpoint keeps the product's own choice.
		opts.Confirm.Unconfirmable = approvals
	}
	h, err := mcp.NewHandler(opts, catalog)
	if err != nil {
		return nil, err
	}
	mux := Mux(h, s.APIBase, b.api)
	b.Auth.MountIfAny(mux)
	if approvals != nil {
		approvals.Routes(mux)
	}
	for _, mount := range b.routes {
		mount(mux)
	}
	mux.Handle("/", unknownPath(b.api, deps.PublicURL, s.Title, s.APIBase))
	if deps.Jobs != nil {
		for _, register := range b.jobs {
			register(deps.Jobs)
		}
	}
	l := b.listener
	if approvals != nil {
		l.Shutdown = withApprovalsClosed(l.Shutdown, approvals)
	}
	l.Spec, l.Handler, l.API, l.MCP, l.Catalog = s, httpx.FastPath(mux, MCPPath, MCPPath), b.api, h, catalog
	l.Approvals = approvals
	l.ErrorCodes = b.apiConfig.ErrorCodes
	return &l, nil
}

// RegisterJobs registers the product's job workers and periodic jobs on
// q, without serving it: what `kobana-mcp worker` does for each product.
func RegisterJobs(s *Spec, deps Deps) ([]prometheus.Collector, error) {
	b, err := s.build(deps)
	if err != nil {
		return nil, err
	}
	if deps.Jobs != nil {
		for _, register := range b.jobs {
			register(deps.Jobs)
		}
	}
	return b.listener.Collectors, nil
}

// Catalog is the product's MCP catalog and API as declared, built without
// any connection: for snapshots, generated reference docs and the
// product's scopes.
func Catalog(s *Spec) (*Listener, error) {
	return Assemble(s, Deps{PublicURL: "http://127.0.0.1"})
}

// Scopes are the product's OAuth scopes, derived from its operations'
// requirements in declaration order: a scope exists because an operation
// needs it.
func (s *Spec) Scopes() []string {
	b := &Builder{spec: s}
	if s.Build != nil {
		if err := s.Build(b); err != nil {
			return nil
		}
	}
	var out []string
	for _, op := range b.API(rest.Config{}).Operations() {
		for _, sc := range op.Requires.Scopes {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	return out
}
