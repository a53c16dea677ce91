package accounts_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// TestRemoveMember: a removal takes the person out of that organization
// only, moves the identity generation (what the cached identity read
// trusts, docs/decisions.md "Identity read cache"), never removes the last
// owner, and answers not found for someone who is not a member.
func TestRemoveMember(t *testing.T) {
	t.Parallel()
	run(t, func(t *testing.T, ctx context.Context, a *accounts.Store) {
		orgA := must[accounts.Organization](t)(a.CreateOrganization(ctx, "Alpha"))
		orgB := must[accounts.Organization](t)(a.CreateOrganization(ctx, "Beta"))
		owner := must[accounts.User](t)(a.CreateUser(ctx, accounts.NewUser{Email: "owner@a.test", OrganizationID: orgA.ID, Role: identity.RoleOwner}))
		u := must[accounts.User](t)(a.CreateUser(ctx, accounts.NewUser{Email: "u@a.test", OrganizationID: orgA.ID, Role: identity.RoleAdmin}))
		if err := a.SetRole(ctx, orgB.ID, u.ID, identity.RoleMember); err != nil {
			t.Fatal(err)
		}
		before := accounts.Generation()
		if err := a.RemoveMember(ctx, orgA.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		if accounts.Generation() == before {
			t.Fatal("the removal did not move the identity generation")
		}
		if _, err := a.GetMembership(ctx, orgA.ID, u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("still a member: %v", err)
		}
		if m := must[accounts.Membership](t)(a.GetMembership(ctx, orgB.ID, u.ID)); m.Role != identity.RoleMember {
			t.Fatalf("the other organization's membership: %+v", m)
		}
		if err := a.RemoveMember(ctx, orgA.ID, u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("removing again: %v", err)
		}
		if err := a.RemoveMember(ctx, orgA.ID, owner.ID); !errors.Is(err, accounts.ErrLastOwner) {
			t.Fatalf("removing the last owner: %v", err)
		}
		if _, err := a.GetMembership(ctx, orgA.ID, owner.ID); err != nil {
			t.Fatalf("the last owner was removed: %v", err)
		}
	})
}
