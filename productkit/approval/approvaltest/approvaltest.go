// Package approvaltest builds a product listener for tests of the approval
// link (package approval) with nothing faked but the product: a real
// database, the real built-in authorization server (sign-in pages and
// sessions), a real MCP endpoint that verifies real access tokens, the
// approval policy and pages, and a test catalog with two destructive
// tools: projects_delete, that counts its runs, and projects_export, whose
// answer only queues an export (exports.go) that the page follows.
//
// The Go tests of package approval use it, and so does the test server the
// headless-Chromium test starts (examples/approval).
package approvaltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// People of the test organization.
const (
	OwnerEmail    = "ana@demo.local"
	OwnerPassword = "ana-demo-password-1"
	OtherEmail    = "bruno@demo.local"
	OtherPassword = "bruno-demo-password-1"
	// OutsiderEmail belongs to another organization.
	OutsiderEmail    = "carla@outra.local"
	OutsiderPassword = "carla-demo-password-1"

	// Scope is the test product's only scope.
	Scope = "projects"
	// ClientID is the OAuth client of the tokens Token mints.
	ClientID = "approval-test-client"
	// ProductName is what the pages call the product.
	ProductName = "Projetos (teste)"
)

// Options tune the listener.
type Options struct {
	// TTL is the approvals' expiry (approval.DefaultTTL when zero).
	TTL time.Duration
	// RetryWait is approval.Options.RetryWait.
	RetryWait time.Duration
	// Owners are approval.Options.Owners (approvals the product asks for
	// itself).
	Owners map[string]approval.Owner
	// Jobs is approval.Options.Jobs: the queue approved calls run on (nil:
	// a goroutine of this process).
	Jobs *jobs.Queue
	// Now replaces the approval policy's clock.
	Now    func() time.Time
	Logger *slog.Logger
	// PasswordParams are the argon2id costs (cheap ones by default: this
	// is for tests).
	PasswordParams accounts.PasswordParams
}

// Server is the test listener.
type Server struct {
	// URL is its public base URL.
	URL string
	// Handler serves the whole listener.
	Handler  http.Handler
	Policy   *approval.Policy
	Auth     *server.Server
	Keys     *oauth.KeySet
	Accounts *accounts.Store
	// Org is the organization of Owner and Other; Outsider's is another.
	Org                     accounts.Organization
	Owner, Other, Outsider  accounts.User
	Projects                *Projects
	mcpResource, apiBaseURL string
}

// New builds the listener for a server that will be reached at publicURL
// ("http://127.0.0.1:PORT"), on a migrated database.
func New(ctx context.Context, db *store.DB, publicURL string, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.PasswordParams == (accounts.PasswordParams{}) {
		opts.PasswordParams = accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}
	}
	s := &Server{URL: publicURL, mcpResource: publicURL + "/mcp", apiBaseURL: publicURL + "/api"}
	s.Accounts = accounts.New(db, accounts.Options{Password: opts.PasswordParams})
	var err error
	if s.Org, err = s.Accounts.CreateOrganization(ctx, "Acme Ltda"); err != nil {
		return nil, err
	}
	other, err := s.Accounts.CreateOrganization(ctx, "Outra Empresa")
	if err != nil {
		return nil, err
	}
	for _, u := range []struct {
		dst             *accounts.User
		email, password string
		org             string
		role            identity.Role
	}{
		{&s.Owner, OwnerEmail, OwnerPassword, s.Org.ID, identity.RoleOwner},
		{&s.Other, OtherEmail, OtherPassword, s.Org.ID, identity.RoleOwner},
		{&s.Outsider, OutsiderEmail, OutsiderPassword, other.ID, identity.RoleOwner},
	} {
		if *u.dst, err = s.Accounts.CreateUser(ctx, accounts.NewUser{Email: u.email, Password: u.password, OrganizationID: u.org, Role: u.role}); err != nil {
			return nil, err
		}
	}
	if s.Keys, err = oauth.NewKeySet(&oauth.MemoryKeyStore{}, oauth.KeySetOptions{}); err != nil {
		return nil, err
	}
	s.Auth, err = server.New(server.Config{
		Issuer: publicURL, ProductName: ProductName, Resources: []string{s.mcpResource, s.apiBaseURL},
		Scopes: []string{Scope}, Keys: s.Keys, Store: sqlstore.New(db), Accounts: sqlstore.Accounts{Store: s.Accounts},
		Logger: opts.Logger.With("component", "oauth"), ReturnPaths: []string{approval.PathPrefix},
	})
	if err != nil {
		return nil, err
	}
	roles := RoleLookup(s.Accounts)
	rs := &oauth.ResourceServer{
		Resource: s.mcpResource, MetadataURL: oauth.WellKnownURL(s.mcpResource), AuthorizationServers: []string{publicURL},
		Scopes: []string{Scope}, Name: ProductName + " MCP",
		Verifier: &oauth.JWTVerifier{Issuer: publicURL, Audience: s.mcpResource, Keys: oauth.KeySetSource{Keys: s.Keys}},
		Roles:    roles,
	}
	s.Projects = NewProjects()
	tools := s.Projects.Tools()
	s.Policy, err = approval.New(approval.Options{
		DB: db, PublicURL: publicURL, ProductName: ProductName, Tools: tools, SignIn: s.Auth,
		Roles: roles, Access: rs.Access, TTL: opts.TTL, RetryWait: opts.RetryWait, Now: opts.Now, Owners: opts.Owners, Jobs: opts.Jobs,
		Logger: opts.Logger.With("component", "approval"), Location: Brasilia(),
		ToolTitles: ToolTitles, Progress: s.Projects.Progress(publicURL),
	})
	if err != nil {
		return nil, err
	}
	h, err := mcp.NewHandler(mcp.Options{
		Name: "approval-test", Title: ProductName, Version: "1.0.0", Authorizer: rs, Logger: opts.Logger,
		Confirm: mcp.ConfirmOptions{Unconfirmable: s.Policy},
	}, mcp.Catalog{Tools: tools})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	s.Auth.Routes(mux)
	s.Policy.Routes(mux)
	mux.Handle("/mcp", h)
	s.Handler = mux
	return s, nil
}

// Token mints an access token for the MCP endpoint, as the built-in server
// would issue it after sign-in and consent.
func (s *Server) Token(u accounts.User, orgID string) (string, error) {
	is := &oauth.Issuer{URL: s.URL, Keys: s.Keys}
	tok, _, err := is.Issue(oauth.Grant{Subject: u.ID, UserID: u.ID, Email: u.Email, OrganizationID: orgID, ClientID: ClientID,
		Audience: s.mcpResource, Scopes: []string{Scope}, TTL: time.Hour})
	return tok, err
}

// RoleLookup reads a person's current role from the memberships table, as
// the binary does.
func RoleLookup(acc *accounts.Store) oauth.RoleLookup {
	return func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
		m, err := acc.GetMembership(ctx, id.OrganizationID, id.UserID)
		if errors.Is(err, store.ErrNotFound) {
			return "", oauth.ErrNoMembership
		}
		return m.Role, err
	}
}

// Projects is the test catalog's data: projects a destructive tool deletes
// (it only counts), and what each run saw.
type Projects struct {
	mu    sync.Mutex
	names map[string]string
	runs  map[string]int
	seen  []Run
	// exports are the exports projects_export queued, by id: where each
	// stands.
	exports map[string]approval.WorkState
	// Gate, when set, makes projects_delete wait for a value (or its
	// closing) before it counts, to hold a run in progress.
	Gate chan struct{}
}

// Run is what one run of projects_delete saw.
type Run struct {
	Project      string
	UserID       string
	Role         identity.Role
	Confirmation string // the confirmation's nonce
}

// NewProjects returns the test projects: alpha ("Alpha"), beta ("Beta"),
// gama ("Gama") and delta ("Delta").
func NewProjects() *Projects {
	return &Projects{names: map[string]string{"alpha": "Alpha", "beta": "Beta", "gama": "Gama", "delta": "Delta"}, runs: map[string]int{},
		exports: map[string]approval.WorkState{}}
}

// Runs is how many times projects_delete ran for a project.
func (p *Projects) Runs(project string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs[project]
}

// AllRuns are the run counts of every project that ran.
func (p *Projects) AllRuns() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, v := range p.runs {
		out[k] = v
	}
	return out
}

// Seen is what every run saw, in order.
func (p *Projects) Seen() []Run {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// ConfirmMessage is projects_delete's description of a call.
func ConfirmMessage(name, id string) string {
	return fmt.Sprintf("Delete project '%s' (id %s)? Its files are removed. This cannot be undone.", name, id)
}

type deleteArgs struct {
	Project string `json:"project"`
	Reason  string `json:"reason,omitempty"`
}

// Tools are the test catalog: projects_delete (destructive, owners and
// admins) and projects_runs (read-only).
func (p *Projects) Tools() []mcp.Tool {
	notFound := mcp.ErrorResult(`{"error":{"code":"not_found","message":"project not found"}}`)
	return []mcp.Tool{
		{
			Name: "projects_delete", Title: "Delete a project", Description: "Deletes a project and its files.",
			InputSchema: &jsonschema.Schema{Type: "object", Required: []string{"project"}, Properties: map[string]*jsonschema.Schema{
				"project": {Type: "string", Description: "the project's id"},
				"reason":  {Type: "string", Description: "why, for the record"},
			}},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
			Requires:    mcp.Requirement{Scopes: []string{Scope}, Permission: identity.PermManage},
			Confirm: func(ctx context.Context, req *mcp.CallToolRequest) (string, *mcp.CallToolResult, error) {
				var a deleteArgs
				_ = json.Unmarshal(req.Arguments, &a)
				p.mu.Lock()
				name, ok := p.names[a.Project]
				p.mu.Unlock()
				if !ok {
					return "", notFound, nil
				}
				return ConfirmMessage(name, a.Project), nil, nil
			},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a deleteArgs
				_ = json.Unmarshal(req.Arguments, &a)
				if p.Gate != nil {
					select {
					case <-p.Gate:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}
				p.mu.Lock()
				defer p.mu.Unlock()
				if _, ok := p.names[a.Project]; !ok {
					return notFound, nil
				}
				run := Run{Project: a.Project}
				if id := identity.From(ctx); id != nil {
					run.UserID, run.Role = id.UserID, id.Role
				}
				if c := mcp.ConfirmationFrom(ctx); c != nil {
					run.Confirmation = c.Nonce
				}
				p.runs[a.Project]++
				p.seen = append(p.seen, run)
				body, _ := json.Marshal(map[string]any{"deleted": a.Project, "runs": p.runs[a.Project]})
				return mcp.TextResult(string(body)), nil
			},
		},
		p.exportTool(),
		{
			Name: "projects_runs", Title: "Runs", Description: "How many times each project was deleted.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
			Requires:    mcp.Requirement{Scopes: []string{Scope}},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				body, _ := json.Marshal(p.AllRuns())
				return mcp.TextResult(string(body)), nil
			},
		},
	}
}
