package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

const approvalsUsage = `Usage: kobana-mcp approvals show|continue|cancel LINK_OR_ID --user EMAIL [flags]

Answers an approval link from the terminal, as the person it was asked of,
instead of on its page in a browser (docs/operating.md "Approvals from the
terminal"):

  show      what the page shows: who asks, the tool, the exact arguments,
            what it will do, and where the approval stands
  continue  Continuar: shows it, asks y/N (--yes does not ask), and the call
            runs once, as you, as a job of the running serve (or a worker);
            waits up to --wait for its outcome
  cancel    Cancelar: shows it, asks y/N (--yes does not ask); nothing runs

--yes decides without asking. LINK_OR_ID is the approval link (http://127.0.0.1:8083/approvals/…) or its
id. Only the person the approval was asked of finds it (anyone else's looks
like none); a decided or expired one is refused. It works from the data
directory, like "kobana-mcp token": give it the serve's --data-dir (or
--database-url) and --state-secrets.

Exit status: 0 done, 1 refused or an error, 2 a usage error, 3 not
confirmed (declined, or no terminal to ask and no --yes): nothing decided.
`

func approvalsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return approvalsWith(ctx, args, stdout, stderr, terminal{in: os.Stdin, interactive: isTerminal(os.Stdin)})
}

// approvalsWith is `kobana-mcp approvals` with term as its terminal.
func approvalsWith(ctx context.Context, args []string, stdout, stderr io.Writer, term terminal) int {
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kobana-mcp approvals: "+format+"\n", a...)
		return 2
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprint(stderr, approvalsUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	verb, rest := args[0], args[1:]
	var decision approval.Decision
	switch verb {
	case "show":
	case "continue":
		decision = approval.Continue
	case "cancel":
		decision = approval.Cancel
	default:
		return usageErr("unknown verb %q (show, continue or cancel)", verb)
	}
	var target string
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		target, rest = rest[0], rest[1:]
	}
	// --yes is a switch; the settings table (serve's) holds only values.
	yes, rest := takeSwitch(rest, "yes")
	var s settings
	db := addDBFlags(&s)
	secrets := s.Add("state-secrets", "KOBANA_STATE_SECRETS", "", "the deployment secrets, as given to serve")
	user := s.Add("user", "", "", "the e-mail of the person the approval was asked of (required)")
	only := s.Add("product", "", "", "the product the approval belongs to (default: the one at the link's address, else the one that knows it)")
	wait := s.Add("wait", "", "30s", "after continue: how long to wait for the call's outcome (0s: do not wait)")
	specs := products()
	pf, checks := addProductFlags(&s, specs, true)
	if err := s.Parse("approvals "+verb, rest, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, "\n"+approvalsUsage)
			return 0
		}
		return 2
	}
	operands := s.Args()
	if target == "" && len(operands) > 0 {
		target, operands = operands[0], operands[1:]
	}
	switch {
	case target == "":
		return usageErr("which approval? give its link or id")
	case len(operands) > 0:
		return usageErr("one approval at a time (also given: %s)", strings.Join(operands, " "))
	case strings.TrimSpace(*user) == "":
		return usageErr("--user is required: the person the approval was asked of")
	}
	waitFor, err := time.ParseDuration(*wait)
	if err != nil || waitFor < 0 {
		return usageErr("--wait must be a duration (0s: do not wait)")
	}
	if err := runChecks(checks); err != nil {
		return usageErr("%v", err)
	}
	id, origin, err := approvalTarget(target)
	if err != nil {
		return usageErr("%v", err)
	}
	// Each product's public URL as serve's: given, else as the running
	// serve recorded it, else the default address (as `token` finds it).
	public := map[string]string{}
	var chosen []*productkit.Spec
	for _, spec := range specs {
		public[spec.Key] = pf[spec.Key].public(*pf[spec.Key].addr)
		if !s.Explicit(spec.Key+"-public-url") && !s.Explicit(spec.Key+"-addr") {
			if u := recordedEndpoint(*db.dataDir, spec.Key); u != "" {
				public[spec.Key] = u
			}
		}
		if *only == spec.Key || (*only == "" && (origin == "" || sameOrigin(origin, public[spec.Key]))) {
			chosen = append(chosen, spec)
		}
	}
	switch {
	case *only != "" && len(chosen) == 0:
		return usageErr("unknown product %q (%s)", *only, productKeys())
	case len(chosen) == 0:
		return fail(stderr, "approvals", fmt.Errorf("no product of this data directory is at %s (the link's address); name it with --product", origin))
	}
	return decideApproval(ctx, approvalRequest{
		dataDir: *db.dataDir, dbURL: *db.url, secrets: *secrets, user: *user, id: id, decision: decision,
		yes: yes, wait: waitFor, public: public, specs: chosen,
	}, stdout, stderr, term)
}

// takeSwitch removes a boolean flag (-name, --name, --name=true|false)
// from args and reports whether it was set.
func takeSwitch(args []string, name string) (bool, []string) {
	on := false
	var kept []string
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case name, name + "=true":
			if strings.HasPrefix(a, "-") {
				on = true
				continue
			}
		case name + "=false":
			if strings.HasPrefix(a, "-") {
				on = false
				continue
			}
		}
		kept = append(kept, a)
	}
	return on, kept
}

// approvalTarget reads LINK_OR_ID: an approval page's URL (its id and
// origin) or a bare id.
func approvalTarget(target string) (id, origin string, err error) {
	if !strings.Contains(target, "://") {
		return target, "", nil
	}
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("%q is not an approval link", target)
	}
	id, ok := strings.CutPrefix(u.Path, approval.PathPrefix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", "", fmt.Errorf("%q is not an approval link (…%s<id>)", target, approval.PathPrefix)
	}
	return id, u.Scheme + "://" + u.Host, nil
}

// approvalRequest is one `kobana-mcp approvals` run, parsed.
type approvalRequest struct {
	dataDir, dbURL, secrets, user, id string
	decision                          approval.Decision // "" shows only
	yes                               bool
	wait                              time.Duration
	public                            map[string]string
	specs                             []*productkit.Spec
}

// decideApproval finds the approval among the products' policies — as the
// page does, for the person only — shows it and, for continue or cancel,
// records the decision through the policy's Decide, the page's own path:
// one conditional change, the run a job committed with it.
func decideApproval(ctx context.Context, r approvalRequest, stdout, stderr io.Writer, term terminal) int {
	_, secret, err := loadSealer(r.secrets, r.dataDir)
	if err != nil {
		return fail(stderr, "approvals", err)
	}
	conn, _, err := openMigrated(ctx, r.dataDir, r.dbURL)
	if err != nil {
		return fail(stderr, "approvals", err)
	}
	defer conn.Close()
	person, err := findUser(ctx, accounts.New(conn, accounts.Options{}), r.user)
	if err != nil {
		return fail(stderr, "approvals", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// This process only enqueues: the serve (or a worker) runs the call.
	queue, err := jobs.New(ctx, conn, jobs.Config{Work: false, Logger: log})
	if err != nil {
		return fail(stderr, "approvals", err)
	}
	defer stopQueue(queue)
	listeners, closeProducts, err := headless{DataDir: r.dataDir, DB: conn, Queue: queue, Secret: secret, Log: log, Public: r.public}.assemble(ctx, r.specs)
	if err != nil {
		return fail(stderr, "approvals", err)
	}
	defer closeProducts()
	var policy *approval.Policy
	var a *approval.Approval
	for _, spec := range r.specs {
		p := listeners[spec.Key].Approvals
		if p == nil {
			continue
		}
		found, err := p.ForPerson(ctx, r.id, person.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fail(stderr, "approvals", err)
		}
		policy, a = p, found
		break
	}
	if policy == nil {
		return fail(stderr, "approvals", fmt.Errorf("no approval %s for %s: it does not exist, or it was not asked of them", r.id, person.Email))
	}
	printApproval(stdout, policy.Describe(ctx, pagetext.ForHeader("en"), a))
	if r.decision == "" {
		return 0
	}
	if a.Status != approval.StatusPending {
		return fail(stderr, "approvals", notPending(a))
	}
	if !r.yes {
		if !term.interactive {
			fmt.Fprintln(stderr, "kobana-mcp approvals: stdin is not a terminal to ask on: run again with --yes to decide, or open the link in a browser. Nothing was decided.")
			return exitNotConfirmed
		}
		label := "Continuar: run it once, as you"
		if r.decision == approval.Cancel {
			label = "Cancelar: nothing runs"
		}
		ask := &terminalAnswerer{in: bufio.NewReader(term.in), out: stderr, interactive: true}
		ok, err := ask.yesNo(label)
		if err != nil {
			return fail(stderr, "approvals", err)
		}
		if !ok {
			fmt.Fprintln(stderr, "Nothing was decided.")
			return exitNotConfirmed
		}
	}
	decided, err := policy.Decide(ctx, a, person.ID, r.decision)
	if err != nil {
		return fail(stderr, "approvals", err)
	}
	if !decided {
		// Decided elsewhere meanwhile, or expired while asking.
		if a, err = policy.ForPerson(ctx, r.id, person.ID); err != nil {
			return fail(stderr, "approvals", err)
		}
		return fail(stderr, "approvals", notPending(a))
	}
	if r.decision == approval.Cancel {
		fmt.Fprintln(stdout, "Cancelar: cancelled. Nothing ran.")
		return 0
	}
	fmt.Fprintln(stdout, "Continuar: approved. The call runs once, as you, as a job of the running serve (or a worker).")
	return awaitOutcome(ctx, policy, r, person.ID, stdout, stderr)
}

// awaitOutcome follows an approved call until it ran or r.wait passed.
func awaitOutcome(ctx context.Context, p *approval.Policy, r approvalRequest, userID string, stdout, stderr io.Writer) int {
	if r.wait <= 0 {
		return 0
	}
	deadline := time.Now().Add(r.wait)
	for {
		a, err := p.ForPerson(ctx, r.id, userID)
		if err != nil {
			return fail(stderr, "approvals", err)
		}
		if a.Status.Final() {
			sum := p.Describe(ctx, pagetext.ForHeader("en"), a)
			fmt.Fprintf(stdout, "%s: %s\n", a.Status, sum.StatusText)
			if sum.Result != "" {
				fmt.Fprintf(stdout, "result:\n%s\n", indentLines(sum.Result, "  "))
			}
			return 0
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(stdout, "Still %s after %s: it runs when serve (or a worker) works the job queue; see it with: kobana-mcp approvals show %s --user %s\n",
				a.Status, r.wait, r.id, r.user)
			return 0
		}
		select {
		case <-ctx.Done():
			return fail(stderr, "approvals", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// notPending says why a decided or expired approval cannot be decided.
func notPending(a *approval.Approval) error {
	if a.Status == approval.StatusExpired {
		return fmt.Errorf("approval %s expired at %s before anyone chose Continuar: nothing ran, and it can no longer be decided; ask for the action again for a new link",
			a.ID, a.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return fmt.Errorf("approval %s was already decided: it is %s; it cannot be decided again", a.ID, a.Status)
}

// printApproval shows what the approval page shows.
func printApproval(w io.Writer, s approval.Summary) {
	fmt.Fprintf(w, "Approval %s (%s)\n", s.ID, s.Product)
	fmt.Fprintf(w, "  asked of:  %s\n", s.Email)
	client := s.Client
	if s.DeclaredClient != "" {
		client += " (declares itself " + s.DeclaredClient + ")"
	}
	fmt.Fprintf(w, "  asked by:  %s\n", client)
	tool := s.ToolName
	if s.ToolTitle != "" && s.ToolTitle != s.ToolName {
		tool += " — " + s.ToolTitle
	}
	fmt.Fprintf(w, "  tool:      %s\n", tool)
	fmt.Fprintf(w, "  arguments:\n%s\n", indentLines(s.Arguments, "    "))
	fmt.Fprintf(w, "  what:      %s\n", s.Message)
	if s.Status == approval.StatusPending {
		fmt.Fprintf(w, "  status:    pending, expires at %s (in %s)\n", s.ExpiresAt.UTC().Format(time.RFC3339), time.Until(s.ExpiresAt).Round(time.Second))
		return
	}
	fmt.Fprintf(w, "  status:    %s — %s\n", s.Status, s.StatusText)
	if s.Result != "" {
		fmt.Fprintf(w, "  result:\n%s\n", indentLines(s.Result, "    "))
	}
}

func indentLines(text, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n"+prefix)
}

// stopQueue closes an insert-only queue's connections.
func stopQueue(q *jobs.Queue) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = q.Stop(ctx)
}

// sameOrigin reports whether two URLs have one scheme and host (port
// included).
func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}
