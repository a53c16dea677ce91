package producttest

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// LinkError reads the answer of a destructive call the client could not
// confirm, on a listener with the sign-in (Options.SignIn): the seeds'
// confirmation_required error carrying the approval link
// (approval.LinkError). It fails the test unless the answer is an error
// with that code and a link to this listener's page that expires
// approval.DefaultTTL from now, said in minutes and as a time.
func (e *Env) LinkError(text string, isError bool) approval.LinkErrorBody {
	e.t.Helper()
	var l approval.LinkError
	if err := json.Unmarshal([]byte(text), &l); err != nil || !isError {
		e.t.Fatalf("want the confirmation_required error with a link (isError %v): %v\n%s", isError, err, text)
	}
	b := l.Error
	if b.Code != mcp.ConfirmationRequiredCode || b.ApprovalID == "" || b.ApprovalURL != e.URL+approval.PathPrefix+b.ApprovalID {
		e.t.Fatalf("code %q, approval %q at %q (want under %s%s)\n%s", b.Code, b.ApprovalID, b.ApprovalURL, e.URL, approval.PathPrefix, text)
	}
	exp, err := time.Parse(time.RFC3339, b.ExpiresAt)
	if err != nil || exp.Before(time.Now().Add(approval.DefaultTTL-time.Minute)) || exp.After(time.Now().Add(approval.DefaultTTL+time.Minute)) {
		e.t.Fatalf("expires_at %q, want about %s from now", b.ExpiresAt, approval.DefaultTTL)
	}
	for _, want := range []string{"open " + b.ApprovalURL + " to approve it", "10 minutes", b.ExpiresAt, "Continuar", "Do not retry"} {
		if !strings.Contains(b.Message, want) {
			e.t.Errorf("the message does not say %q: %s", want, b.Message)
		}
	}
	return b
}

// Approval reads an approval from the shared table.
func (e *Env) Approval(id string) *approval.Approval {
	e.t.Helper()
	a, err := approval.NewStore(e.DB, nil).Get(context.Background(), id)
	if err != nil {
		e.t.Fatalf("approval %s: %v", id, err)
	}
	return a
}

// WaitApproval polls an approval until it reaches want (10 s at most).
func (e *Env) WaitApproval(id string, want approval.Status) *approval.Approval {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := e.Approval(id)
		if a.Status == want {
			return a
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("approval %s is %s, want %s", id, a.Status, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ExpireApproval moves an approval's expiry to the past, as if its ten
// minutes had passed.
func (e *Env) ExpireApproval(id string) {
	e.t.Helper()
	if _, err := e.DB.Exec(context.Background(), `UPDATE approvals SET expires_at = ? WHERE id = ?`, time.Now().Add(-time.Second).UTC(), id); err != nil {
		e.t.Fatal(err)
	}
}
