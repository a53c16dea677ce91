package identity

import (
	"context"
	"testing"
)

func TestRolesAllow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		role Role
		perm string
		want bool
	}{
		{RoleViewer, PermRead, true}, {RoleViewer, PermWrite, false}, {RoleViewer, PermManage, false},
		{RoleMember, PermWrite, true}, {RoleMember, PermManage, false},
		{RoleAdmin, PermManage, true}, {RoleAdmin, PermOwn, false},
		{RoleOwner, PermOwn, true}, {RoleOwner, "", true},
		{RoleOwner, "unknown", false}, {Role("root"), PermRead, false}, {Role(""), "", false},
	}
	for _, c := range cases {
		if got := c.role.Allows(c.perm); got != c.want {
			t.Errorf("%q.Allows(%q) = %v, want %v", c.role, c.perm, got, c.want)
		}
	}
}

func TestIdentityInContext(t *testing.T) {
	t.Parallel()
	if From(context.Background()) != nil {
		t.Fatal("no identity expected")
	}
	id := &Identity{Issuer: "i", Subject: "s", OrganizationID: "o", Scopes: []string{"a", "b"}}
	got := From(With(context.Background(), id))
	if got != id || !got.HasScopes([]string{"a", "b"}) || got.HasScopes([]string{"a", "c"}) {
		t.Fatalf("identity round trip: %+v", got)
	}
	other := &Identity{Issuer: "i", Subject: "s", OrganizationID: "o2"}
	if id.Principal() == other.Principal() {
		t.Fatal("principals of two organizations must differ")
	}
}
