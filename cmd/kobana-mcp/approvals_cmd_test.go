package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp/client"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// approvalLink makes a pending approval the way a person gets one: a
// client that cannot confirm (a 2026-07-28 client without form
// elicitation) calls the Inbox's workspaces_delete for a new workspace,
// and the answer is the confirmation_required error carrying the link.
func (s *callServe) approvalLink(t *testing.T, externalID string) (link, id string) {
	t.Helper()
	if r := s.call(t, terminal{}, "--product", "inbox", "tool", "workspaces_create", "label=Aprovação "+externalID, "external_id="+externalID); r.code != 0 {
		t.Fatalf("workspaces_create: %d %s%s", r.code, r.out, r.errOut)
	}
	var tok strings.Builder
	if code := run(context.Background(), []string{"token", "--data-dir", s.dataDir, "--database-url", s.dbURL, "--product", "inbox", "--user", accounts.DemoOwnerEmail}, &tok, io.Discard); code != 0 {
		t.Fatal("token")
	}
	c := &client.Client{URL: s.endpoint(t, "inbox"), Token: strings.TrimSpace(tok.String())}
	res, err := c.CallTool(context.Background(), "workspaces_delete", map[string]any{"id": externalID})
	if err != nil || !res.IsError || len(res.Content) == 0 {
		t.Fatalf("workspaces_delete without a way to confirm: %v %+v", err, res)
	}
	var body struct {
		Error struct {
			ApprovalURL string `json:"approval_url"`
			ApprovalID  string `json:"approval_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), &body); err != nil || body.Error.ApprovalURL == "" {
		t.Fatalf("no approval link in %s", res.Content[0].Text)
	}
	return body.Error.ApprovalURL, body.Error.ApprovalID
}

// approvals runs `kobana-mcp approvals` against the serve's data
// directory.
func (s *callServe) approvals(t *testing.T, term terminal, args ...string) callResult {
	t.Helper()
	if term.in == nil {
		term.in = strings.NewReader("")
	}
	var out, errOut strings.Builder
	full := append(append([]string{}, args...), "--data-dir", s.dataDir, "--database-url", s.dbURL, "--wait", "1m")
	code := approvalsWith(context.Background(), full, &out, &errOut, term)
	return callResult{code: code, out: out.String(), errOut: errOut.String()}
}

// workspaceExists reports whether the Inbox still has the workspace.
func (s *callServe) workspaceExists(t *testing.T, externalID string) bool {
	t.Helper()
	r := s.call(t, terminal{}, "--product", "inbox", "tool", "workspaces_get", "id="+externalID)
	if r.code != 0 && !strings.Contains(r.out, "not_found") {
		t.Fatalf("workspaces_get: %d %s%s", r.code, r.out, r.errOut)
	}
	return r.code == 0
}

// TestApprovalsCommand: `kobana-mcp approvals` answers an approval link
// from the terminal, through the page's own path: it shows the exact call,
// asks y/N, and Continuar runs it once, as a job of the running serve; the
// same link is refused to another person (as if it did not exist), when
// replayed, and once expired; Cancelar runs nothing; without a terminal or
// --yes nothing is decided.
func TestApprovalsCommand(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s := startCallServe(t, engine)
			var created strings.Builder
			if code := run(context.Background(), []string{"users", "create", "--data-dir", s.dataDir, "--database-url", s.dbURL,
				"--org", "Demo Company", "--email", "ana@demo.local", "--role", "owner"}, &created, io.Discard); code != 0 {
				t.Fatalf("users create: %s", created.String())
			}
			tty := func(input string) terminal { return terminal{in: strings.NewReader(input), interactive: true} }

			link, id := s.approvalLink(t, "appr-continue")
			r := s.approvals(t, terminal{}, "show", link, "--user", accounts.DemoOwnerEmail)
			if r.code != 0 || !strings.Contains(r.out, "Approval "+id) || !strings.Contains(r.out, "workspaces_delete") ||
				!strings.Contains(r.out, `"id": "appr-continue"`) || !strings.Contains(r.out, "Delete workspace 'Aprovação appr-continue'") || !strings.Contains(r.out, "status:    pending") {
				t.Fatalf("show: %d %s%s", r.code, r.out, r.errOut)
			}
			// Another person of the same organization: no such approval.
			for _, verb := range []string{"show", "continue"} {
				r = s.approvals(t, terminal{}, verb, link, "--user", "ana@demo.local", "--yes")
				if r.code != 1 || !strings.Contains(r.errOut, "no approval "+id+" for ana@demo.local") || strings.Contains(r.out, "appr-continue") {
					t.Fatalf("%s as another person: %d %s%s", verb, r.code, r.out, r.errOut)
				}
			}
			// Nobody to ask, or the person says no: nothing decided.
			r = s.approvals(t, terminal{}, "continue", link, "--user", accounts.DemoOwnerEmail)
			if r.code != exitNotConfirmed || !strings.Contains(r.errOut, "run again with --yes") {
				t.Fatalf("no terminal: %d %s%s", r.code, r.out, r.errOut)
			}
			r = s.approvals(t, tty("n\n"), "continue", link, "--user", accounts.DemoOwnerEmail)
			if r.code != exitNotConfirmed || !strings.Contains(r.errOut, "Continuar: run it once, as you? [y/N] ") {
				t.Fatalf("n: %d %s%s", r.code, r.out, r.errOut)
			}
			if !s.workspaceExists(t, "appr-continue") {
				t.Fatal("the workspace went before anyone said yes")
			}
			// y: approved, run once by serve's queue.
			r = s.approvals(t, tty("y\n"), "continue", id, "--user", accounts.DemoOwnerEmail)
			if r.code != 0 || !strings.Contains(r.out, "Continuar: approved.") || !strings.Contains(r.out, "succeeded: ") {
				t.Fatalf("y: %d %s%s", r.code, r.out, r.errOut)
			}
			if s.workspaceExists(t, "appr-continue") {
				t.Fatal("the approved call did not run")
			}
			// A replay, by the command or the other verb: refused, nothing
			// runs again.
			for _, verb := range []string{"continue", "cancel"} {
				r = s.approvals(t, terminal{}, verb, link, "--user", accounts.DemoOwnerEmail, "--yes")
				if r.code != 1 || !strings.Contains(r.errOut, "approval "+id+" was already decided: it is succeeded") {
					t.Fatalf("%s again: %d %s%s", verb, r.code, r.out, r.errOut)
				}
			}

			// Expired: refused, nothing runs.
			_, expired := s.approvalLink(t, "appr-expired")
			db, err := store.Open(context.Background(), databaseURL(s.dataDir, s.dbURL))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(context.Background(), `UPDATE approvals SET expires_at = ? WHERE id = ?`, time.Now().Add(-time.Second).UTC(), expired); err != nil {
				t.Fatal(err)
			}
			r = s.approvals(t, terminal{}, "continue", expired, "--user", accounts.DemoOwnerEmail, "--yes")
			if r.code != 1 || !strings.Contains(r.errOut, "approval "+expired+" expired at ") || !strings.Contains(r.errOut, "nothing ran") {
				t.Fatalf("expired: %d %s%s", r.code, r.out, r.errOut)
			}
			if !s.workspaceExists(t, "appr-expired") {
				t.Fatal("an expired approval ran")
			}

			// Cancelar: nothing runs, and it stays cancelled.
			_, cancelled := s.approvalLink(t, "appr-cancel")
			r = s.approvals(t, terminal{}, "cancel", cancelled, "--user", accounts.DemoOwnerEmail, "--yes")
			if r.code != 0 || !strings.Contains(r.out, "Cancelar: cancelled. Nothing ran.") {
				t.Fatalf("cancel: %d %s%s", r.code, r.out, r.errOut)
			}
			r = s.approvals(t, terminal{}, "continue", cancelled, "--user", accounts.DemoOwnerEmail, "--yes")
			if r.code != 1 || !strings.Contains(r.errOut, "it is cancelled") || !s.workspaceExists(t, "appr-cancel") {
				t.Fatalf("continue after cancel: %d %s%s", r.code, r.out, r.errOut)
			}
		})
	}
}

// TestApprovalsUsage: what the command refuses before it opens anything.
func TestApprovalsUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"approve", "x", "--user", "a@b.c"}, `unknown verb "approve"`},
		{[]string{"show", "--user", "a@b.c"}, "which approval?"},
		{[]string{"show", "x"}, "--user is required"},
		{[]string{"show", "x", "y", "--user", "a@b.c"}, "one approval at a time"},
		{[]string{"show", "http://127.0.0.1:8083/elsewhere/x", "--user", "a@b.c"}, "is not an approval link"},
		{[]string{"show", "x", "--user", "a@b.c", "--product", "billing"}, `unknown product "billing"`},
	} {
		var out, errOut strings.Builder
		if code := approvalsWith(context.Background(), append(c.args, "--data-dir", dir), &out, &errOut, terminal{in: strings.NewReader("")}); code != 2 || !strings.Contains(errOut.String(), c.says) {
			t.Errorf("%v: %d %s", c.args, code, errOut.String())
		}
	}
}
