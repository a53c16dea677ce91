package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/store"
)

// PathPrefix is where the approval pages live on the product's listener:
// PathPrefix + id. The authorization server must list it in
// server.Config.ReturnPaths so sign-in comes back to the page.
const PathPrefix = "/approvals/"

// ElicitKey is the key of the URL elicitation in inputRequests and
// inputResponses (2026-07-28 clients that declared URL mode).
const ElicitKey = "approval"

// stateData marks the sealed requestState data of an approval prompt; the
// approval's id follows it.
const stateData = "platform/approval\x00"

// Defaults of Options.
const (
	DefaultTTL        = 10 * time.Minute
	DefaultRunTimeout = 2 * time.Minute
	DefaultRetryWait  = 20 * time.Second
)

// SignIn is the sign-in of the product's pages: the built-in authorization
// server of the same listener (*server.Server), so the person signs in
// once, exactly as for OAuth.
type SignIn interface {
	// Visitor is the person signed in to the request's session, or nil.
	Visitor(r *http.Request) (*server.Visitor, error)
	// SignInURL is the sign-in page that returns to returnTo.
	SignInURL(returnTo string) string
	// ClientName names an OAuth client for the person, on a page in l's
	// language.
	ClientName(ctx context.Context, l *pagetext.Printer, clientID string) string
	// ExplainReturns registers why people sign in on the way to the pages
	// under a prefix: the policy says "Entre para aprovar «…» pedido por
	// «…»" (Policy.SignInReason).
	ExplainReturns(prefix string, reason server.SignInReason)
}

// Options configure a Policy.
type Options struct {
	// DB holds the approvals (Migrations).
	DB *store.DB
	// PublicURL is the product listener's public base URL; approval links
	// are PublicURL + PathPrefix + id.
	PublicURL string
	// ProductName is shown on the pages ("Kadu").
	ProductName string
	// Tools are the catalog's tools: an approved call runs the handler of
	// the tool with its name. A destructive tool missing here is refused
	// (mcp.Refuse) instead of getting a link.
	Tools []mcp.Tool
	// SignIn signs people in to the pages. Nil makes a policy that only
	// runs approved calls from Jobs (a worker process, which serves no
	// pages): it offers no links (Unconfirmable refuses) and mounts no
	// routes.
	SignIn SignIn
	// Jobs is the process's job queue (platform/jobs): Continuar enqueues
	// the run of the approved call (kind RunKind) in the transaction that
	// approves it, and the queue's worker — in this process or any other
	// on the database — runs it (Policy.RunApproved), through Runners.
	// Nil runs approved calls in a goroutine of the process that approved
	// them (tests, and a process without a queue).
	Jobs *jobs.Queue
	// Runners is the one worker of RunKind on Jobs, shared by every
	// product's policy on that queue (NewRunners); New adds the policy to
	// it. Nil with Jobs set makes the policy its own, which registers the
	// worker: right only for the queue's only policy.
	Runners *Runners
	// AsError answers the link to a client without URL elicitation inside
	// the confirmation_required tool error (isError, the code of
	// mcp.Refuse, plus approval_url, approval_id and expires_at; LinkError)
	// instead of as a normal result (LinkResult). The Inbox and Dunning
	// choose it: their seeds answer confirmation_required to such clients,
	// and a client that reads only the code still sees the refusal it
	// expects, while the person gets a way forward.
	AsError bool
	// Roles reads the person's current role when the page is shown and when
	// the call runs: someone who left the organization sees no page and
	// runs nothing. Nil skips the lookup (tests).
	Roles oauth.RoleLookup
	// Access judges, when the call runs, whether the person's current role
	// and the stored scopes still allow the tool (the product's
	// mcp.Authorizer.Access); nil allows.
	Access func(ctx context.Context, req mcp.Requirement) mcp.Access
	// TTL is how long an approval waits for Continuar (DefaultTTL).
	TTL time.Duration
	// RunTimeout bounds one run of an approved call (DefaultRunTimeout).
	RunTimeout time.Duration
	// RetryWait is how long a client's retry waits for a run in progress
	// to finish before it is asked to retry again (DefaultRetryWait).
	RetryWait time.Duration
	// Location is the time zone of times on the pages (UTC by default;
	// every product passes Brasília time, productkit.Approvals).
	Location *time.Location
	// ToolTitles are the product's titles of its destructive tools in both
	// of the pages' languages, by tool name; a tool without one shows its
	// catalog title, in CatalogLanguage.
	ToolTitles map[string]pagetext.Phrase
	// CatalogLanguage is the BCP 47 language the product's catalog (its
	// tools' titles and confirmation messages, written for models) is in;
	// the page marks them with it when it is not the page's ("en" by
	// default).
	CatalogLanguage string
	// Progress reads, each time the page of a succeeded call is shown,
	// what the call started that goes on after it (a Kadu execution still
	// queued), so the page says where that stands instead of "done"
	// (progress.go). Nil: the call's outcome is all there is.
	Progress ProgressFunc
	// Owners are the handlers of approvals the product asks for itself
	// (Policy.Request, or Store.Create with Approval.Owner set), by the
	// name stored in Approval.Owner: Continuar and Cancelar hand such an
	// approval to its owner instead of running a stored tool.
	Owners map[string]Owner
	// Now replaces the clock, for tests.
	Now    func() time.Time
	Logger *slog.Logger
}

// Owner is what a product registers for the approvals it asks for itself:
// a call it is about to make on a person's behalf (a Kadu execution's
// destructive step), shown on the same page as any approval, with the
// exact tool and arguments. The page only records the decision; the owner
// makes the call, exactly once, by claiming the approval (Store.Claim,
// approved → running) and recording the outcome (Store.Finish), so the
// page shows what ran.
type Owner struct {
	// Decided is told that the person chose Continuar (the approval is
	// approved) or Cancelar (cancelled); it is told again when a reading
	// finds an approval still approved and unclaimed after a while (the
	// process that was told died before acting). It must be quick and
	// idempotent: typically it enqueues the job that resumes the work.
	Decided func(ctx context.Context, a *Approval) error
	// Requester names who asks, on the page, in both of its languages
	// ("Kadu — uma execução de tarefa (…)"), when the approval records no
	// OAuth client (Approval.ClientID: the client that started the work,
	// named by its registered name when it has one, as for MCP calls); nil
	// always shows the client's name.
	Requester func(a *Approval) pagetext.Phrase
	// ToolTitle is the display title of a tool the product's own catalog
	// does not hold (another product's tool); nil or "" shows the name.
	ToolTitle func(tool string) string
	// Page is the product's page for people about what asks (Kadu's
	// execution page: what the execution did before this step), linked
	// beside who asks; nil or a URL that is not http(s) shows none.
	Page func(a *Approval) string
}

// Policy is the approval-link confirmation policy (docs/decisions.md
// "Approval link"): an mcp.ConfirmPolicy for clients that cannot confirm a
// destructive call in the chat, and the pages where the person approves
// it (Routes). See the package documentation.
type Policy struct {
	opts  Options
	store *Store
	tools map[string]*mcp.Tool
	log   *slog.Logger
	csrf  *http.CrossOriginProtection

	mu     sync.Mutex
	closed bool
	runs   sync.WaitGroup
}

var _ mcp.ConfirmPolicy = (*Policy)(nil)

// New returns the policy described by opts.
func New(opts Options) (*Policy, error) {
	switch {
	case opts.DB == nil:
		return nil, errors.New("approval: a database is required")
	case opts.SignIn == nil && opts.Jobs == nil:
		return nil, errors.New("approval: a sign-in (the built-in authorization server) is required")
	case !strings.HasPrefix(opts.PublicURL, "http://") && !strings.HasPrefix(opts.PublicURL, "https://"):
		return nil, fmt.Errorf("approval: public URL %q is not an http(s) URL", opts.PublicURL)
	}
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.RunTimeout <= 0 {
		opts.RunTimeout = DefaultRunTimeout
	}
	if opts.RetryWait <= 0 {
		opts.RetryWait = DefaultRetryWait
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ProductName == "" {
		opts.ProductName = opts.PublicURL
	}
	if opts.CatalogLanguage == "" {
		opts.CatalogLanguage = "en"
	}
	p := &Policy{opts: opts, store: NewStore(opts.DB, opts.Now), tools: map[string]*mcp.Tool{}, log: opts.Logger, csrf: http.NewCrossOriginProtection()}
	for i := range opts.Tools {
		p.tools[opts.Tools[i].Name] = &opts.Tools[i]
	}
	if opts.Jobs != nil {
		if p.opts.Runners == nil {
			p.opts.Runners = NewRunners(opts.DB, opts.Jobs)
		}
		if err := p.opts.Runners.add(p); err != nil {
			return nil, err
		}
	}
	p.csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.message(w, r, http.StatusForbidden, pagetext.KeyApprovalCrossSiteTitle, pagetext.KeyApprovalCrossSite)
	}))
	if opts.SignIn != nil {
		// The sign-in page says what the person signs in to approve.
		opts.SignIn.ExplainReturns(PathPrefix, p)
	}
	return p, nil
}

// Request stores a pending approval the product asks for itself: a's
// Owner names one of Options.Owners, and a carries the person (organization,
// user, e-mail), the tool, its RFC 8785 canonical arguments, the message
// and OwnerRef; ExpiresAt defaults to now plus TTL. It returns the link to
// show the person.
func (p *Policy) Request(ctx context.Context, a *Approval) (string, error) {
	if _, ok := p.opts.Owners[a.Owner]; !ok || a.Owner == "" {
		return "", fmt.Errorf("approval: no owner %q is registered", a.Owner)
	}
	if a.ExpiresAt.IsZero() {
		a.ExpiresAt = p.store.clock().Add(p.opts.TTL)
	}
	if err := p.store.Create(ctx, a); err != nil {
		return "", fmt.Errorf("approval: storing: %w", err)
	}
	p.log.InfoContext(ctx, "approval: requested", "approval", a.ID, "owner", a.Owner, "ref", a.OwnerRef, "tool", a.Tool)
	return p.URL(a.ID), nil
}

// notify hands an owned approval's decision to its owner, with a context
// of its own: the page's request may end before the owner is done.
func (p *Policy) notify(a *Approval) {
	o, ok := p.opts.Owners[a.Owner]
	if !ok || o.Decided == nil {
		p.log.Error("approval: no owner handler for a decided approval", "approval", a.ID, "owner", a.Owner)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fresh, err := p.store.reread(ctx, a.ID)
	if err == nil {
		err = o.Decided(ctx, fresh)
	}
	if err != nil {
		p.log.Error("approval: telling the owner of a decision", "approval", a.ID, "owner", a.Owner, "error", err)
	}
}

// Store is the policy's table of approvals (for a product's tool that
// reads them, such as Kadu's kadu_approvals_get).
func (p *Policy) Store() *Store { return p.store }

// URL is the link of an approval's page.
func (p *Policy) URL(id string) string { return p.opts.PublicURL + PathPrefix + id }

// Unconfirmable implements mcp.ConfirmPolicy. A first call stores a
// pending approval and answers its link: as a normal result, or, to a
// 2026-07-28 client that declared URL elicitation, as an input_required URL
// request whose sealed state carries the approval's id. The retry of such
// a client (call.Request.State) reads the approval: still pending asks
// again; approved runs the call (unless a click already claimed the run,
// then it waits for and answers the recorded outcome); succeeded or failed
// answers the recorded outcome; cancelled or expired answers isError.
func (p *Policy) Unconfirmable(ctx context.Context, call *mcp.UnconfirmableCall) (mcp.Decision, error) {
	if p.opts.SignIn == nil {
		// Nobody could sign in to a page of this process.
		return mcp.Refuse().Unconfirmable(ctx, call)
	}
	if st := call.Request.State; st != nil {
		if id, ok := strings.CutPrefix(string(st.Data), stateData); ok {
			return p.retry(ctx, call, id)
		}
	}
	return p.create(ctx, call)
}

// create stores the pending approval and answers its link.
func (p *Policy) create(ctx context.Context, call *mcp.UnconfirmableCall) (mcp.Decision, error) {
	id := identity.From(ctx)
	if id == nil || id.UserID == "" || id.OrganizationID == "" {
		// Nobody could open the link: a machine client, or no identity.
		return mcp.Refuse().Unconfirmable(ctx, call)
	}
	if _, ok := p.tools[call.Tool.Name]; !ok {
		p.log.ErrorContext(ctx, "approval: a destructive tool is not in the approval policy's catalog; refusing it", "tool", call.Tool.Name)
		return mcp.Refuse().Unconfirmable(ctx, call)
	}
	message, res, err := call.Describe()
	if err != nil {
		return mcp.Decision{}, err
	}
	if res != nil {
		// The call cannot go ahead (its target does not exist): that answer,
		// and no approval.
		return mcp.Decision{Result: res}, nil
	}
	args, err := canonical(call.Request.Arguments)
	if err != nil {
		return mcp.Decision{}, mcp.InvalidParams("Invalid arguments: %v", err)
	}
	now := p.store.clock()
	a := &Approval{
		OrganizationID: id.OrganizationID, UserID: id.UserID, PrincipalHash: PrincipalHash(call.Principal),
		Issuer: id.Issuer, Subject: id.Subject, Email: id.Email, ClientID: id.ClientID,
		Scopes: strings.Join(id.Scopes, " "), WorkspaceID: id.WorkspaceID, Audience: id.Audience,
		Tool: call.Tool.Name, Arguments: args, Message: message,
		CreatedAt: now, ExpiresAt: now.Add(p.opts.TTL),
	}
	if info := call.Request.ClientInfo(); info != nil {
		a.ClientInfoName, a.ClientInfoVersion = info.Name, info.Version
	}
	if err := p.store.Create(ctx, a); err != nil {
		return mcp.Decision{}, fmt.Errorf("approval: storing: %w", err)
	}
	p.log.InfoContext(ctx, "approval: created", "approval", a.ID, "tool", a.Tool, "organization", a.OrganizationID, "user", a.UserID, "client_id", a.ClientID)
	if urlElicitation(call.Request) {
		return mcp.Decision{Result: p.prompt(a, "")}, nil
	}
	if p.opts.AsError {
		return mcp.Decision{Result: p.linkError(call, a)}, nil
	}
	return mcp.Decision{Result: p.linkResult(call.Request, a)}, nil
}

// urlElicitation reports whether the client can be asked to open a URL.
func urlElicitation(req *mcp.CallToolRequest) bool {
	return req.Era == mcp.EraModern && req.Capabilities.ElicitURL()
}

// LinkResult is the text of the answer to a client that gets the link as a
// result: a JSON object.
type LinkResult struct {
	ApprovalID  string `json:"approval_id"`
	ApprovalURL string `json:"approval_url"`
	Status      Status `json:"status"`
	ExpiresAt   string `json:"expires_at"`
	Message     string `json:"message"`
}

// linkResult is the normal (not error) result carrying the link.
func (p *Policy) linkResult(req *mcp.CallToolRequest, a *Approval) *mcp.CallToolResult {
	url := p.URL(a.ID)
	body, _ := json.Marshal(LinkResult{
		ApprovalID: a.ID, ApprovalURL: url, Status: a.Status, ExpiresAt: a.ExpiresAt.UTC().Format(time.RFC3339),
		Message: fmt.Sprintf("Nothing was done yet: this needs the person's approval. Open this link to approve: %s — %s Nothing runs until you choose Continuar on that page; the link expires at %s.",
			url, a.Message, a.ExpiresAt.UTC().Format(time.RFC3339)),
	})
	return &mcp.CallToolResult{Content: []mcp.Content{req.JSONText(body)}}
}

// LinkError is the text of the answer of a policy with Options.AsError:
// the confirmation_required error of mcp.Refuse, carrying the link.
type LinkError struct {
	Error LinkErrorBody `json:"error"`
}

// LinkErrorBody is LinkError's error: the refusal's code and a message
// that says what to do with the link, and the link itself.
type LinkErrorBody struct {
	Code        string `json:"code"`
	Message     string `json:"message"`
	ApprovalURL string `json:"approval_url"`
	ApprovalID  string `json:"approval_id"`
	ExpiresAt   string `json:"expires_at"`
}

// linkError is the isError result carrying the link (Options.AsError):
// the seeds' confirmation_required, in the product's JSON text style, so
// a client that reads only the code stops as before, and the model has a
// link to show the person.
func (p *Policy) linkError(call *mcp.UnconfirmableCall, a *Approval) *mcp.CallToolResult {
	url := p.URL(a.ID)
	expires := a.ExpiresAt.UTC().Format(time.RFC3339)
	body, _ := marshalText(LinkError{Error: LinkErrorBody{
		Code: mcp.ConfirmationRequiredCode,
		Message: fmt.Sprintf("Nothing was done: %s is a destructive tool and this client cannot confirm destructive tools in the chat (%s). "+
			"Show the person this link: open %s to approve it — they sign in, see exactly what will run and choose Continuar (it then runs once, as them) or Cancelar. "+
			"The link is theirs only, works once and expires in %s, at %s. Do not retry the call: retrying makes another link and runs nothing. What they will approve: %s",
			call.Tool.Name, call.Reason, url, englishMinutes(a.ExpiresAt.Sub(a.CreatedAt)), expires, a.Message),
		ApprovalURL: url, ApprovalID: a.ID, ExpiresAt: expires,
	}})
	return &mcp.CallToolResult{Content: []mcp.Content{call.Request.JSONText(body)}, IsError: true}
}

// marshalText is json.Marshal without HTML escaping: the text is read by
// a model and a person, not embedded in a page.
func marshalText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// englishMinutes says a duration in minutes, rounded up, for the model.
func englishMinutes(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", m)
}

// prompt is the input_required URL elicitation of an approval; note, when
// set, is said first.
func (p *Policy) prompt(a *Approval, note string) *mcp.CallToolResult {
	msg := fmt.Sprintf("Approve in your browser: %s Nothing runs until you choose Continuar on the page (it expires at %s).",
		a.Message, a.ExpiresAt.UTC().Format(time.RFC3339))
	if note != "" {
		msg = note + " " + msg
	}
	return mcp.InputRequiredResult(&mcp.InputRequired{
		Requests: map[string]mcp.InputRequest{ElicitKey: mcp.ElicitURL(msg, p.URL(a.ID))},
		Data:     []byte(stateData + a.ID),
		// The retry may come as late as the approval itself expires.
		TTL: time.Until(a.ExpiresAt),
	})
}

// retry continues a URL elicitation.
func (p *Policy) retry(ctx context.Context, call *mcp.UnconfirmableCall, id string) (mcp.Decision, error) {
	req := call.Request
	a, err := p.store.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return mcp.Decision{Result: toolError(req, "approval_not_found", "Nothing was done: this approval no longer exists. Call the tool again for a new link.")}, nil
	}
	if err != nil {
		return mcp.Decision{}, err
	}
	args, err := canonical(req.Arguments)
	if err != nil || a.PrincipalHash != PrincipalHash(call.Principal) || a.Tool != call.Tool.Name || args != a.Arguments {
		// The sealed state binds caller, tool and arguments already; this
		// only catches a state of one approval presented for another call.
		return mcp.Decision{}, mcp.InvalidParams("Invalid requestState: it belongs to another call")
	}
	a, err = p.settle(ctx, a)
	if err != nil {
		return mcp.Decision{}, err
	}
	if a.Status == StatusPending {
		if resp, ok := req.InputResponses[ElicitKey]; ok {
			if answer, err := resp.Elicit(); err == nil && answer.Action != "accept" {
				// The person would not open the link: nothing will run.
				done, err := p.store.Cancel(ctx, a.ID)
				if err != nil {
					return mcp.Decision{}, err
				}
				if done {
					p.log.InfoContext(ctx, "approval: declined in the client", "approval", a.ID, "action", answer.Action)
					return mcp.Decision{Result: toolError(req, "approval_declined", fmt.Sprintf("Nothing was done: the person chose %s instead of opening the approval link. They were asked: %s", answer.Action, a.Message))}, nil
				}
				if a, err = p.store.Get(ctx, a.ID); err != nil {
					return mcp.Decision{}, err
				}
			}
		}
	}
	if a.Status == StatusApproved {
		claimed, err := p.store.Claim(ctx, a.ID)
		if err != nil {
			return mcp.Decision{}, err
		}
		if claimed {
			// This retry runs it, in a context that outlives the client's
			// patience so the outcome is recorded whatever happens.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opts.RunTimeout)
			defer cancel()
			res, err := p.execute(rctx, a)
			return mcp.Decision{Result: res}, err
		}
	}
	if a.Status == StatusApproved || a.Status == StatusRunning {
		if a, err = p.await(ctx, a.ID); err != nil {
			return mcp.Decision{}, err
		}
	}
	return mcp.Decision{Result: p.outcome(req, a)}, nil
}

// outcome answers a retry from the approval's status.
func (p *Policy) outcome(req *mcp.CallToolRequest, a *Approval) *mcp.CallToolResult {
	switch a.Status {
	case StatusSucceeded:
		return &mcp.CallToolResult{Content: a.Content()}
	case StatusFailed:
		return &mcp.CallToolResult{Content: a.Content(), IsError: true}
	case StatusCancelled:
		return toolError(req, "approval_cancelled", "Nothing was done: the person chose Cancelar. They were asked: "+a.Message)
	case StatusExpired:
		return toolError(req, "approval_expired", fmt.Sprintf("Nothing was done: the approval expired at %s before anyone chose Continuar. Call the tool again for a new link.", a.ExpiresAt.UTC().Format(time.RFC3339)))
	case StatusApproved, StatusRunning:
		return p.prompt(a, "It was approved and is running now; retry to get its outcome.")
	}
	return p.prompt(a, "")
}

// await polls the approval until its run has an outcome, RetryWait passes
// or ctx ends; it returns the last reading.
func (p *Policy) await(ctx context.Context, id string) (*Approval, error) {
	deadline := time.Now().Add(p.opts.RetryWait)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		a, err := p.store.Get(ctx, id)
		if err != nil || a.Status.Final() || time.Now().After(deadline) {
			return a, err
		}
		select {
		case <-ctx.Done():
			return a, nil
		case <-tick.C:
		}
	}
}

// toolError is an isError result whose text is
// {"error":{"code":…,"message":…}}, like the framework's refusal.
func toolError(req *mcp.CallToolRequest, code, message string) *mcp.CallToolResult {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": message}})
	return &mcp.CallToolResult{Content: []mcp.Content{req.JSONText(body)}, IsError: true}
}

// canonical is the RFC 8785 form of a call's arguments ({} when none).
func canonical(args []byte) (string, error) {
	if len(args) == 0 {
		return "{}", nil
	}
	v := jsontext.Value(args).Clone()
	if err := v.Canonicalize(); err != nil {
		return "", err
	}
	return string(v), nil
}

// Close stops starting runs and waits for those in progress, until ctx
// ends, for a graceful shutdown.
func (p *Policy) Close(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	done := make(chan struct{})
	go func() { p.runs.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
