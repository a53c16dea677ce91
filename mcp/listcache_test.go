package mcp

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
)

// classedAuthorizer is roleAuthorizer with classes (role and scopes), and
// counts its Access calls; X-No-Class callers have none.
type classedAuthorizer struct {
	roleAuthorizer
	calls atomic.Int64
}

func (a *classedAuthorizer) Access(ctx context.Context, req Requirement) Access {
	a.calls.Add(1)
	return a.roleAuthorizer.Access(ctx, req)
}

func (a *classedAuthorizer) AccessClass(ctx context.Context) (string, bool) {
	c := ctx.Value(callerKey{}).(caller)
	if c.scopes["no-class"] {
		return "", false
	}
	var s []byte
	for _, k := range []string{"emails", "inboxes"} {
		if c.scopes[k] {
			s = append(s, k...)
		}
	}
	return c.role + "\x00" + string(s), true
}

// TestToolsListBuiltOncePerClass: callers of one class get the answer
// built for the first of them, still filtered for their class; another
// class gets its own; a caller without a class is filtered on each
// request; each page of a paginated list is its own answer.
func TestToolsListBuiltOncePerClass(t *testing.T) {
	t.Parallel()
	auth := &classedAuthorizer{}
	h := MustNewHandler(Options{Name: "t", Version: "1", Authorizer: auth}, accessCatalog())
	member := map[string]string{"Authorization": "Bearer x", "X-Scopes": "emails"}
	admin := map[string]string{"Authorization": "Bearer y", "X-Scopes": "emails inboxes", "X-Role": "admin"}
	loose := map[string]string{"Authorization": "Bearer z", "X-Scopes": "emails inboxes no-class", "X-Role": "admin"}
	list := func(who map[string]string) string {
		return names(t, post(h, who, "tools/list", "", "", nil), "tools", "name")
	}
	for range 3 {
		if got := list(member); got != "public_read" {
			t.Fatalf("member sees %q", got)
		}
		if got := list(admin); got != "public_read,emails_read,admin_only" {
			t.Fatalf("admin sees %q", got)
		}
	}
	if n := auth.calls.Load(); n != 6 { // 3 tools, once for each class
		t.Fatalf("%d Access calls for two classes over six lists, want 6", n)
	}
	for range 2 {
		if got := list(loose); got != "public_read,emails_read,admin_only" {
			t.Fatalf("class-less admin sees %q", got)
		}
	}
	if n := auth.calls.Load(); n != 12 {
		t.Fatalf("%d Access calls after two class-less lists, want 12", n)
	}

	paged := MustNewHandler(Options{Name: "t", Version: "1", Authorizer: &classedAuthorizer{}, PageSize: 2}, accessCatalog())
	first := post(paged, admin, "tools/list", "", "", nil)
	var out struct {
		Result struct {
			NextCursor string `json:"nextCursor"`
		} `json:"result"`
	}
	if err := json.Unmarshal(first.Body.Bytes(), &out); err != nil || out.Result.NextCursor == "" {
		t.Fatalf("no second page: %s", first.Body)
	}
	for range 2 {
		if got := names(t, post(paged, admin, "tools/list", "", "", map[string]any{"cursor": out.Result.NextCursor}), "tools", "name"); got != "admin_only" {
			t.Fatalf("second page %q", got)
		}
		if got := names(t, post(paged, admin, "tools/list", "", "", nil), "tools", "name"); got != "public_read,emails_read" {
			t.Fatalf("first page %q", got)
		}
	}
}
