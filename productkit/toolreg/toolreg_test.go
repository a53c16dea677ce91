package toolreg

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/identity"
)

// seen is what the tool's handler was given.
type seen struct {
	id   *identity.Identity
	conf *mcp.Confirmation
	args string
}

func testTools(got *[]seen) []mcp.Tool {
	h := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		*got = append(*got, seen{identity.From(ctx), mcp.ConfirmationFrom(ctx), string(req.Arguments)})
		return mcp.TextResult(`{"ok":true}`), nil
	}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	write := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)}
	del := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	return []mcp.Tool{
		{Name: "a_list", Annotations: ro, Handler: h, Requires: mcp.Requirement{Scopes: []string{"a.read"}, Permission: identity.PermRead}},
		{Name: "a_create", Annotations: write, Handler: h, Requires: mcp.Requirement{Scopes: []string{"a.write"}, Permission: identity.PermWrite}},
		{Name: "a_delete", Annotations: del, Handler: h, Requires: mcp.Requirement{Scopes: []string{"a.write"}, Permission: identity.PermManage}},
	}
}

func TestCallChecksAtTheMomentOfTheCall(t *testing.T) {
	t.Parallel()
	var got []seen
	r := New()
	if err := r.Add("alpha", testTools(&got)); err != nil {
		t.Fatal(err)
	}
	b := []mcp.Tool{{Name: "b_list", Annotations: testTools(&got)[0].Annotations, Handler: testTools(&got)[0].Handler, Requires: mcp.Requirement{Scopes: []string{"b.read"}}}}
	if err := r.Add("beta", b); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("beta", testTools(&got)[:1]); err == nil {
		t.Fatal("a name of another product was accepted")
	}
	role := identity.RoleMember
	roles := oauth.RoleLookup(func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
		if role == "" {
			return "", oauth.ErrNoMembership
		}
		return role, nil
	})
	base := Call{OrganizationID: "o1", UserID: "u1", Email: "p@x", Allowed: []string{"a_list", "a_create", "a_delete", "b_list"}, Client: "test"}
	call := func(tool string, mod func(*Call)) error {
		c := base
		c.Tool, c.Arguments = tool, json.RawMessage(`{"k":1}`)
		if mod != nil {
			mod(&c)
		}
		_, err := r.Call(context.Background(), roles, c)
		return err
	}
	code := func(err error) string {
		if ref, ok := IsRefusal(err); ok {
			return ref.Code
		}
		if err != nil {
			return err.Error()
		}
		return ""
	}

	if err := call("a_list", nil); err != nil {
		t.Fatal(err)
	}
	id := got[0].id
	// Exactly the scopes the allowed tools of alpha need; none of beta's.
	if id.OrganizationID != "o1" || id.UserID != "u1" || id.Role != identity.RoleMember || !slices.Equal(id.Scopes, []string{"a.read", "a.write"}) || id.Issuer != Issuer {
		t.Errorf("identity %+v", id)
	}
	if got[0].args != `{"k":1}` {
		t.Errorf("arguments %s", got[0].args)
	}
	if c := code(call("b_list", nil)); c != "" || !slices.Equal(got[1].id.Scopes, []string{"b.read"}) {
		t.Errorf("b_list: %s, scopes %v", c, got[1].id.Scopes)
	}
	// A caller bound to a workspace (a Kadu task's workspace_id): the
	// identity carries it, as a token bound to a workspace does.
	if id.WorkspaceID != "" {
		t.Errorf("an unbound call's identity names workspace %q", id.WorkspaceID)
	}
	if c := code(call("a_list", func(c *Call) { c.WorkspaceID = "w1" })); c != "" || got[2].id.WorkspaceID != "w1" {
		t.Errorf("bound call: %s, workspace %q", c, got[2].id.WorkspaceID)
	}
	cases := []struct {
		name, tool string
		mod        func(*Call)
		want       string
	}{
		{"outside the allowed list", "a_create", func(c *Call) { c.Allowed = []string{"a_list"} }, "tool_not_allowed"},
		{"not in the deployment", "zz", func(c *Call) { c.Allowed = []string{"zz"} }, "tool_unavailable"},
		{"destructive without confirmation", "a_delete", func(c *Call) { role = identity.RoleAdmin }, "needs_confirmation"},
		{"demoted since", "a_create", func(c *Call) { role = identity.RoleViewer }, "role_forbids"},
		{"left the organization", "a_list", func(c *Call) { role = "" }, "not_a_member"},
		{"scope not granted", "a_create", func(c *Call) { role = identity.RoleMember; c.Granted = map[string][]string{"alpha": {"a.read"}} }, "scope_not_granted"},
	}
	for _, tc := range cases {
		n := len(got)
		if c := code(call(tc.tool, tc.mod)); c != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, c, tc.want)
		}
		if len(got) != n {
			t.Errorf("%s: the tool ran", tc.name)
		}
	}
	role = identity.RoleAdmin
	conf := &mcp.Confirmation{Nonce: "approval:1"}
	if err := call("a_delete", func(c *Call) { c.Confirmation = conf }); err != nil {
		t.Fatal(err)
	}
	if last := got[len(got)-1]; last.conf != conf || last.id.Role != identity.RoleAdmin {
		t.Errorf("confirmed call got %+v", last)
	}
	scopes, unknown := r.RequiredScopes([]string{"a_list", "b_list", "nope", "a_delete"})
	if !slices.Equal(scopes["alpha"], []string{"a.read", "a.write"}) || !slices.Equal(scopes["beta"], []string{"b.read"}) || !slices.Equal(unknown, []string{"nope"}) {
		t.Errorf("required %v unknown %v", scopes, unknown)
	}
	if _, err := r.Call(context.Background(), nil, Call{Tool: "a_list", Allowed: []string{"a_list"}, OrganizationID: "o", UserID: "u"}); err == nil || errors.Is(err, &Refusal{}) {
		t.Errorf("no role lookup: %v", err)
	}
}
