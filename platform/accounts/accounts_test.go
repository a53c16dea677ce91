package accounts_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// fast keeps argon2id cheap under -race; the format and checks are the
// production ones (password_test.go covers the default costs).
var fast = accounts.Options{Password: accounts.PasswordParams{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}}

func run(t *testing.T, fn func(t *testing.T, ctx context.Context, a *accounts.Store)) {
	storetest.Run(t, func(t *testing.T, db *store.DB) { fn(t, context.Background(), accounts.New(db, fast)) })
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestOrganizationsGetADefaultWorkspace(t *testing.T) {
	t.Parallel()
	run(t, func(t *testing.T, ctx context.Context, a *accounts.Store) {
		org := must[accounts.Organization](t)(a.CreateOrganization(ctx, "  Açúcar & Cia  "))
		if org.Name != "Açúcar & Cia" || org.ID == "" || org.CreatedAt.IsZero() {
			t.Fatalf("created %+v", org)
		}
		ws := must[[]accounts.Workspace](t)(a.ListWorkspaces(ctx, org.ID))
		if len(ws) != 1 || ws[0].Label != accounts.DefaultWorkspaceLabel || ws[0].ExternalID != ws[0].ID ||
			ws[0].EmailPrefix != "acucar-cia" || ws[0].OrganizationID != org.ID {
			t.Fatalf("default workspace: %+v", ws)
		}
		got := must[accounts.Organization](t)(a.GetOrganization(ctx, org.ID))
		if got.Name != org.Name || !got.CreatedAt.Equal(org.CreatedAt) {
			t.Fatalf("get: %+v, want %+v", got, org)
		}
		second := must[accounts.Organization](t)(a.CreateOrganization(ctx, "Second"))
		list := must[[]accounts.Organization](t)(a.ListOrganizations(ctx))
		if len(list) != 2 || list[0].ID != org.ID || list[1].ID != second.ID {
			t.Fatalf("list: %+v", list)
		}
		if _, err := a.GetOrganization(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown organization: %v", err)
		}
		for _, name := range []string{"", "   ", "a\x00b", strings.Repeat("x", 201)} {
			if _, err := a.CreateOrganization(ctx, name); !errors.Is(err, accounts.ErrInvalid) {
				t.Errorf("name %q: %v", name, err)
			}
		}
	})
}

func TestWorkspacesAreScopedByOrganization(t *testing.T) {
	t.Parallel()
	run(t, func(t *testing.T, ctx context.Context, a *accounts.Store) {
		orgA := must[accounts.Organization](t)(a.CreateOrganization(ctx, "A"))
		orgB := must[accounts.Organization](t)(a.CreateOrganization(ctx, "B"))
		wa := must[accounts.Workspace](t)(a.CreateWorkspace(ctx, orgA.ID, accounts.NewWorkspace{ExternalID: "sales", Label: "Sales Team"}))
		if wa.EmailPrefix != "sales-team" || wa.ExternalID != "sales" {
			t.Fatalf("created %+v", wa)
		}
		if got := must[accounts.Workspace](t)(a.GetWorkspace(ctx, orgA.ID, wa.ID)); got.ID != wa.ID {
			t.Fatalf("own workspace: %+v", got)
		}
		// Another organization's workspace is not found — not forbidden.
		if _, err := a.GetWorkspace(ctx, orgB.ID, wa.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("cross-organization get: %v", err)
		}
		if _, err := a.GetWorkspaceByExternalID(ctx, orgB.ID, "sales"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("cross-organization get by external id: %v", err)
		}
		if err := a.DeleteWorkspace(ctx, orgB.ID, wa.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("cross-organization delete: %v", err)
		}
		for _, w := range must[[]accounts.Workspace](t)(a.ListWorkspaces(ctx, orgB.ID)) {
			if w.OrganizationID != orgB.ID {
				t.Fatalf("B lists %+v", w)
			}
		}
		// External ids are unique per organization, among live workspaces.
		if _, err := a.CreateWorkspace(ctx, orgA.ID, accounts.NewWorkspace{ExternalID: "sales", Label: "Again"}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate external id: %v", err)
		}
		must[accounts.Workspace](t)(a.CreateWorkspace(ctx, orgB.ID, accounts.NewWorkspace{ExternalID: "sales", Label: "B sales"}))
		if err := a.DeleteWorkspace(ctx, orgA.ID, wa.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := a.GetWorkspace(ctx, orgA.ID, wa.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted workspace: %v", err)
		}
		if n := len(must[[]accounts.Workspace](t)(a.ListWorkspaces(ctx, orgA.ID))); n != 1 {
			t.Fatalf("A lists %d workspaces after the delete, want the default only", n)
		}
		must[accounts.Workspace](t)(a.CreateWorkspace(ctx, orgA.ID, accounts.NewWorkspace{ExternalID: "sales", Label: "Sales again"}))
		if _, err := a.CreateWorkspace(ctx, store.NewID(), accounts.NewWorkspace{Label: "x"}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown organization: %v", err)
		}
		if _, err := a.CreateWorkspace(ctx, orgA.ID, accounts.NewWorkspace{Label: "x", EmailPrefix: "Not_Kebab"}); !errors.Is(err, accounts.ErrInvalid) {
			t.Fatalf("bad prefix: %v", err)
		}
	})
}

func TestUsersAndPasswords(t *testing.T) {
	t.Parallel()
	run(t, func(t *testing.T, ctx context.Context, a *accounts.Store) {
		u := must[accounts.User](t)(a.CreateUser(ctx, accounts.NewUser{Email: " Ana@Example.COM ", Password: "first password"}))
		if u.Email != "ana@example.com" || u.Name != "ana" {
			t.Fatalf("created %+v", u)
		}
		if _, err := a.CreateUser(ctx, accounts.NewUser{Email: "ANA@example.com", Password: "another one"}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("same email in another case: %v", err)
		}
		if got := must[accounts.User](t)(a.GetUserByEmail(ctx, "aNa@example.com")); got.ID != u.ID {
			t.Fatalf("by email: %+v", got)
		}
		if got := must[accounts.User](t)(a.VerifyPassword(ctx, "ANA@example.com", "first password")); got.ID != u.ID {
			t.Fatalf("sign-in: %+v", got)
		}
		for _, c := range [][2]string{
			{"ana@example.com", "first passworD"},    // wrong password
			{"nobody@example.com", "first password"}, // unknown email
			{"not an email", "first password"},
			{"ana@example.com", ""},
		} {
			if _, err := a.VerifyPassword(ctx, c[0], c[1]); !errors.Is(err, accounts.ErrInvalidCredentials) {
				t.Errorf("VerifyPassword(%q, %q): %v", c[0], c[1], err)
			}
		}
		if err := a.SetPassword(ctx, u.ID, "second password"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.VerifyPassword(ctx, u.Email, "first password"); !errors.Is(err, accounts.ErrInvalidCredentials) {
			t.Fatalf("old password after change: %v", err)
		}
		must[accounts.User](t)(a.VerifyPassword(ctx, u.Email, "second password"))
		if err := a.SetPassword(ctx, store.NewID(), "some password"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
		if err := a.SetPassword(ctx, u.ID, "short"); !errors.Is(err, accounts.ErrInvalid) {
			t.Fatalf("short password: %v", err)
		}
		// A user without a password cannot sign in with any.
		nopw := must[accounts.User](t)(a.CreateUser(ctx, accounts.NewUser{Email: "bo@example.com", Name: "Bo"}))
		if _, err := a.VerifyPassword(ctx, nopw.Email, ""); !errors.Is(err, accounts.ErrInvalidCredentials) {
			t.Fatalf("no password: %v", err)
		}
		// The accounts parse with platform/address, like every product:
		// no injected header, no second address, no control character;
		// an internationalised domain is stored (and found) in ASCII.
		idn := must[accounts.User](t)(a.CreateUser(ctx, accounts.NewUser{Email: "Cai@Café.com.br"}))
		if idn.Email != "cai@xn--caf-dma.com.br" {
			t.Fatalf("IDN stored as %q", idn.Email)
		}
		if got := must[accounts.User](t)(a.GetUserByEmail(ctx, "cai@café.com.br")); got.ID != idn.ID {
			t.Fatalf("IDN look-up: %+v", got)
		}
		for _, e := range []string{"", "bo", "Bo <bo@example.com>", "bo@", strings.Repeat("x", 250) + "@example.com",
			"bo@example.com\r\nBcc:evil@evil.example", "bo@example.com, evil@evil.example", "bo\x00@example.com", "bo@localhost"} {
			if _, err := a.CreateUser(ctx, accounts.NewUser{Email: e}); !errors.Is(err, accounts.ErrInvalid) {
				t.Errorf("email %q: %v", e, err)
			}
		}
	})
}

func TestRolesAndMemberships(t *testing.T) {
	t.Parallel()
	run(t, func(t *testing.T, ctx context.Context, a *accounts.Store) {
		orgA := must[accounts.Organization](t)(a.CreateOrganization(ctx, "Alpha"))
		orgB := must[accounts.Organization](t)(a.CreateOrganization(ctx, "Beta"))
		owner := must[accounts.User](t)(a.CreateUser(ctx, accounts.NewUser{Email: "owner@a.test", OrganizationID: orgA.ID, Role: identity.RoleOwner}))
		if m := must[accounts.Membership](t)(a.GetMembership(ctx, orgA.ID, owner.ID)); m.Role != identity.RoleOwner || m.OrganizationName != "Alpha" {
			t.Fatalf("membership from CreateUser: %+v", m)
		}
		u := must[accounts.User](t)(a.CreateUser(ctx, accounts.NewUser{Email: "u@a.test"}))
		if _, err := a.GetMembership(ctx, orgA.ID, u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("not a member yet: %v", err)
		}
		if err := a.SetRole(ctx, orgA.ID, u.ID, identity.RoleViewer); err != nil {
			t.Fatal(err)
		}
		if err := a.SetRole(ctx, orgA.ID, u.ID, identity.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if err := a.SetRole(ctx, orgB.ID, u.ID, identity.RoleMember); err != nil {
			t.Fatal(err)
		}
		if m := must[accounts.Membership](t)(a.GetMembership(ctx, orgA.ID, u.ID)); m.Role != identity.RoleAdmin {
			t.Fatalf("role after change: %+v", m)
		}
		ms := must[[]accounts.Membership](t)(a.Memberships(ctx, u.ID))
		if len(ms) != 2 || ms[0].OrganizationName != "Alpha" || ms[0].Role != identity.RoleAdmin || ms[1].OrganizationName != "Beta" || ms[1].Role != identity.RoleMember {
			t.Fatalf("memberships: %+v", ms)
		}
		if err := a.SetRole(ctx, orgA.ID, u.ID, identity.Role("root")); !errors.Is(err, accounts.ErrInvalid) {
			t.Fatalf("unknown role: %v", err)
		}
		if err := a.SetRole(ctx, store.NewID(), u.ID, identity.RoleMember); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown organization: %v", err)
		}
		if err := a.SetRole(ctx, orgA.ID, store.NewID(), identity.RoleMember); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown user: %v", err)
		}
		// The last owner keeps the role until another owner exists.
		if err := a.SetRole(ctx, orgA.ID, owner.ID, identity.RoleAdmin); !errors.Is(err, accounts.ErrLastOwner) || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("demoting the last owner: %v", err)
		}
		if err := a.SetRole(ctx, orgA.ID, u.ID, identity.RoleOwner); err != nil {
			t.Fatal(err)
		}
		if err := a.SetRole(ctx, orgA.ID, owner.ID, identity.RoleAdmin); err != nil {
			t.Fatalf("demoting one of two owners: %v", err)
		}
		// CreateUser with a membership is all or nothing.
		if _, err := a.CreateUser(ctx, accounts.NewUser{Email: "ghost@a.test", OrganizationID: store.NewID(), Role: identity.RoleMember}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown organization: %v", err)
		}
		if _, err := a.GetUserByEmail(ctx, "ghost@a.test"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a failed CreateUser left its user: %v", err)
		}
	})
}

// TestConcurrentCreateUserSameEmail races several sign-ups for one address
// (in different cases): the unique index lets exactly one through.
func TestConcurrentCreateUserSameEmail(t *testing.T) {
	t.Parallel()
	run(t, func(t *testing.T, ctx context.Context, a *accounts.Store) {
		const n = 8
		var (
			wg             sync.WaitGroup
			mu             sync.Mutex
			won, conflicts int
		)
		for i := range n {
			email := "race@example.com"
			if i%2 == 1 {
				email = "RACE@example.com"
			}
			wg.Go(func() {
				_, err := a.CreateUser(ctx, accounts.NewUser{Email: email, Password: "race password"})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case errors.Is(err, store.ErrConflict):
					conflicts++
				default:
					t.Errorf("unexpected error: %v", err)
				}
			})
		}
		wg.Wait()
		if won != 1 || conflicts != n-1 {
			t.Fatalf("%d succeeded, %d conflicted; want 1 and %d", won, conflicts, n-1)
		}
	})
}

func TestEnsureDemoRunsOnceOnAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		// Two replicas start at once on the same empty database.
		stores := []*accounts.Store{accounts.New(db, fast), accounts.New(db, fast)}
		demos := make([]*accounts.Demo, len(stores))
		var wg sync.WaitGroup
		for i, a := range stores {
			wg.Go(func() {
				d, err := a.EnsureDemo(ctx)
				if err != nil {
					t.Error(err)
				}
				demos[i] = d
			})
		}
		wg.Wait()
		var demo *accounts.Demo
		for _, d := range demos {
			if d != nil {
				if demo != nil {
					t.Fatal("two demos created")
				}
				demo = d
			}
		}
		if demo == nil || demo.Email != accounts.DemoOwnerEmail || demo.Organization.Name != accounts.DemoOrganizationName || len(demo.Password) < 20 {
			t.Fatalf("demo: %+v", demo)
		}
		a := stores[0]
		u := must[accounts.User](t)(a.VerifyPassword(ctx, demo.Email, demo.Password))
		if m := must[accounts.Membership](t)(a.GetMembership(ctx, demo.Organization.ID, u.ID)); m.Role != identity.RoleOwner {
			t.Fatalf("demo owner's membership: %+v", m)
		}
		if orgs := must[[]accounts.Organization](t)(a.ListOrganizations(ctx)); len(orgs) != 1 {
			t.Fatalf("organizations after the race: %+v", orgs)
		}
		if again, err := a.EnsureDemo(ctx); again != nil || err != nil {
			t.Fatalf("second start: %+v, %v", again, err)
		}
	})
}

// TestInTxRollsBackIdentityWithTheCallersWork composes identity writes
// with a failing step of the caller's: nothing is left.
func TestInTxRollsBackIdentityWithTheCallersWork(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a := accounts.New(db, fast)
		boom := errors.New("boom")
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			if _, err := a.InTx(tx).CreateOrganization(ctx, "Doomed"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if orgs := must[[]accounts.Organization](t)(a.ListOrganizations(ctx)); len(orgs) != 0 {
			t.Fatalf("rolled-back organization is there: %+v", orgs)
		}
	})
}

// An organization keeps at least one workspace, also when its last two are
// deleted at the same time (the deletion locks the organization's row).
func TestLastWorkspaceIsKept(t *testing.T) {
	t.Parallel()
	run(t, func(t *testing.T, ctx context.Context, a *accounts.Store) {
		org := must[accounts.Organization](t)(a.CreateOrganization(ctx, "Solo"))
		def := must[[]accounts.Workspace](t)(a.ListWorkspaces(ctx, org.ID))[0]
		if err := a.DeleteWorkspace(ctx, org.ID, def.ID); !errors.Is(err, accounts.ErrLastWorkspace) || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("deleting the only workspace: %v, want ErrLastWorkspace", err)
		}
		if err := a.DeleteWorkspace(ctx, org.ID, store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleting an unknown workspace of a one-workspace organization: %v, want ErrNotFound", err)
		}
		if err := a.DeleteWorkspace(ctx, store.NewID(), def.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown organization: %v", err)
		}
		for round := range 3 {
			extra := must[accounts.Workspace](t)(a.CreateWorkspace(ctx, org.ID, accounts.NewWorkspace{Label: "Extra"}))
			live := must[[]accounts.Workspace](t)(a.ListWorkspaces(ctx, org.ID))
			var wg sync.WaitGroup
			errs := make([]error, len(live))
			for i, w := range live {
				wg.Go(func() { errs[i] = a.DeleteWorkspace(ctx, org.ID, w.ID) })
			}
			wg.Wait()
			deleted, refused := 0, 0
			for _, err := range errs {
				switch {
				case err == nil:
					deleted++
				case errors.Is(err, accounts.ErrLastWorkspace):
					refused++
				default:
					t.Fatalf("round %d: %v", round, err)
				}
			}
			if deleted != 1 || refused != 1 {
				t.Fatalf("round %d: %d deleted, %d refused; want 1 and 1", round, deleted, refused)
			}
			if n := len(must[[]accounts.Workspace](t)(a.ListWorkspaces(ctx, org.ID))); n != 1 {
				t.Fatalf("round %d: %d live workspaces, want 1", round, n)
			}
			_ = extra
		}
	})
}
