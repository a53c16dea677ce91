package main

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// cli runs the command as a person would and returns its exit code and
// output.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestOperatorCommands(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dbURL := storetest.URL(t, engine)
			db := []string{"--data-dir", t.TempDir(), "--database-url", dbURL}
			ok := func(args ...string) string {
				t.Helper()
				code, out, errOut := cli(t, append(args, db...)...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s%s", args, code, out, errOut)
				}
				return out
			}
			failing := func(wantCode int, wantErr string, args ...string) {
				t.Helper()
				code, out, errOut := cli(t, append(args, db...)...)
				if code != wantCode || !strings.Contains(errOut, wantErr) {
					t.Fatalf("%v: exit %d, stderr %q (stdout %q); want %d and %q", args, code, errOut, out, wantCode, wantErr)
				}
			}

			// The schema is current after the first run; the second has
			// nothing to apply.
			current := regexp.MustCompile(`schema version (\d+) \(this binary knows up to (\d+)\)`)
			out := ok("migrate")
			if m := current.FindStringSubmatch(out); !strings.Contains(out, "applied 00001_identity.sql") || m == nil || m[1] != m[2] {
				t.Fatalf("first migrate:\n%s", out)
			}
			if out := ok("migrate"); strings.Contains(out, "applied") || !current.MatchString(out) {
				t.Fatalf("second migrate:\n%s", out)
			}

			orgID := strings.TrimSpace(ok("orgs", "create", "--name", "Acme Ltda"))
			if len(orgID) != 36 {
				t.Fatalf("orgs create printed %q, want the id", orgID)
			}
			failing(2, "--name is required", "orgs", "create")
			if out := ok("orgs", "list"); !strings.Contains(out, orgID) || !strings.Contains(out, "Acme Ltda") {
				t.Fatalf("orgs list:\n%s", out)
			}

			// By name, with a generated password.
			out = ok("users", "create", "--org", "Acme Ltda", "--email", "Ana@Acme.test", "--role", "admin")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			password, _ := strings.CutPrefix(lines[len(lines)-1], "password: ")
			if len(lines) != 2 || len(lines[0]) != 36 || len(password) < 20 {
				t.Fatalf("users create printed:\n%s", out)
			}
			conn, err := store.Open(ctx, dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			a := accounts.New(conn, accounts.Options{})
			u, err := a.VerifyPassword(ctx, "ana@acme.test", password)
			if err != nil || u.ID != lines[0] {
				t.Fatalf("sign-in with the printed password: %+v %v", u, err)
			}
			if m, err := a.GetMembership(ctx, orgID, u.ID); err != nil || m.Role != identity.RoleAdmin {
				t.Fatalf("membership: %+v %v", m, err)
			}

			failing(1, "already exists", "users", "create", "--org", orgID, "--email", "ana@acme.test")
			failing(1, "unknown role", "users", "create", "--org", orgID, "--email", "bo@acme.test", "--role", "root")
			failing(1, "no organization", "users", "create", "--org", "Nobody Inc", "--email", "bo@acme.test")
			failing(2, "--email is required", "users", "create", "--org", orgID)
			// A given password is used and not printed.
			if out := ok("users", "create", "--org", orgID, "--email", "bo@acme.test", "--password", "bo's password"); strings.Contains(out, "password") {
				t.Fatalf("printed a given password:\n%s", out)
			}
			if _, err := a.VerifyPassword(ctx, "bo@acme.test", "bo's password"); err != nil {
				t.Fatal(err)
			}

			ok("users", "set-password", "--email", "ANA@acme.test", "--password", "a new password")
			if _, err := a.VerifyPassword(ctx, "ana@acme.test", "a new password"); err != nil {
				t.Fatal(err)
			}
			if out := ok("users", "set-password", "--email", "ana@acme.test"); !strings.HasPrefix(out, "password: ") {
				t.Fatalf("generated password not printed: %q", out)
			} else if _, err := a.VerifyPassword(ctx, "ana@acme.test", strings.TrimSpace(strings.TrimPrefix(out, "password: "))); err != nil {
				t.Fatal(err)
			}
			failing(1, "at least 8", "users", "set-password", "--email", "ana@acme.test", "--password", "short")
			failing(1, "no user", "users", "set-password", "--email", "nobody@acme.test", "--password", "whatever pw")

			ok("users", "set-role", "--email", "ana@acme.test", "--org", orgID, "--role", "viewer")
			if m, err := a.GetMembership(ctx, orgID, u.ID); err != nil || m.Role != identity.RoleViewer {
				t.Fatalf("role after set-role: %+v %v", m, err)
			}
			failing(2, "--role is required", "users", "set-role", "--email", "ana@acme.test", "--org", orgID)
			if _, err := a.VerifyPassword(ctx, "ana@acme.test", "wrong password"); !errors.Is(err, accounts.ErrInvalidCredentials) {
				t.Fatal(err)
			}
		})
	}
}

func TestOperatorCommandsUseTheDataDirAndEnvironment(t *testing.T) {
	// Not parallel: t.Setenv changes the whole process's environment.
	dir := t.TempDir()
	t.Setenv("KOBANA_DATA_DIR", dir)
	t.Setenv("KOBANA_DATABASE_URL", "")
	if code, out, errOut := cli(t, "orgs", "create", "--name", "Env Org"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	// The default database is the SQLite file in the data dir.
	code, out, _ := cli(t, "orgs", "list", "--database-url", "sqlite:"+dir+"/"+store.DefaultFile)
	if code != 0 || !strings.Contains(out, "Env Org") {
		t.Fatalf("orgs list on the default file: %d %s", code, out)
	}
	for _, args := range [][]string{{"orgs"}, {"orgs", "nope"}, {"users"}, {"users", "nope"}} {
		if code, _, _ := cli(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	for _, args := range [][]string{{"orgs", "help"}, {"users", "help"}, {"migrate", "--help"}} {
		if code, _, _ := cli(t, args...); code != 0 {
			t.Errorf("%v: exit %d, want 0", args, code)
		}
	}
}

// TestUsersRemove: `users remove` takes a person out of one organization
// and no other, refuses to remove the last owner, and says so when the
// person is not a member.
func TestUsersRemove(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dbURL := storetest.URL(t, engine)
			db := []string{"--data-dir", t.TempDir(), "--database-url", dbURL}
			run := func(args ...string) (int, string, string) {
				t.Helper()
				return cli(t, append(args, db...)...)
			}
			ok := func(args ...string) string {
				t.Helper()
				code, out, errOut := run(args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s%s", args, code, out, errOut)
				}
				return out
			}
			failing := func(wantCode int, wantErr string, args ...string) {
				t.Helper()
				code, out, errOut := run(args...)
				if code != wantCode || !strings.Contains(errOut, wantErr) {
					t.Fatalf("%v: exit %d, stderr %q (stdout %q); want %d and %q", args, code, errOut, out, wantCode, wantErr)
				}
			}
			acme := strings.TrimSpace(ok("orgs", "create", "--name", "Acme Ltda"))
			other := strings.TrimSpace(ok("orgs", "create", "--name", "Other SA"))
			ok("users", "create", "--org", acme, "--email", "owner@acme.test", "--role", "owner", "--password", "owner password")
			ana := strings.TrimSpace(ok("users", "create", "--org", acme, "--email", "ana@acme.test", "--password", "ana's password"))
			ok("users", "set-role", "--email", "ana@acme.test", "--org", other, "--role", "admin")

			conn, err := store.Open(ctx, dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			a := accounts.New(conn, accounts.Options{})

			if out := ok("users", "remove", "--email", "ANA@acme.test", "--org", "Acme Ltda"); !strings.Contains(out, "ana@acme.test is no longer a member of Acme Ltda") {
				t.Fatalf("users remove printed %q", out)
			}
			if _, err := a.GetMembership(ctx, acme, ana); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("membership in Acme after removal: %v", err)
			}
			if m, err := a.GetMembership(ctx, other, ana); err != nil || m.Role != identity.RoleAdmin {
				t.Fatalf("membership in Other SA (untouched): %+v %v", m, err)
			}
			// The person and their password remain: set-role brings them back.
			if _, err := a.VerifyPassword(ctx, "ana@acme.test", "ana's password"); err != nil {
				t.Fatal(err)
			}
			failing(1, "ana@acme.test is not a member of Acme Ltda", "users", "remove", "--email", "ana@acme.test", "--org", acme)
			failing(1, "last owner of Acme Ltda", "users", "remove", "--email", "owner@acme.test", "--org", acme)
			if m, err := a.GetMembership(ctx, acme, mustUserID(t, a, "owner@acme.test")); err != nil || m.Role != identity.RoleOwner {
				t.Fatalf("the last owner after a refused removal: %+v %v", m, err)
			}
			failing(1, "no user", "users", "remove", "--email", "nobody@acme.test", "--org", acme)
			failing(1, "no organization", "users", "remove", "--email", "ana@acme.test", "--org", "Nobody Inc")
			failing(2, "--org is required", "users", "remove", "--email", "ana@acme.test")
		})
	}
}

func mustUserID(t *testing.T, a *accounts.Store, email string) string {
	t.Helper()
	u, err := a.GetUserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}
