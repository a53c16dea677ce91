package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
)

func TestTokenCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dataDir := t.TempDir()
	db, _, err := openMigrated(ctx, dataDir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	acc := accounts.New(db, accounts.Options{})
	org1, _ := acc.CreateOrganization(ctx, "One")
	org2, _ := acc.CreateOrganization(ctx, "Two")
	u, err := acc.CreateUser(ctx, accounts.NewUser{Email: "ana@example.com", Password: "correct horse battery", OrganizationID: org1.ID, Role: identity.RoleMember})
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.SetRole(ctx, org2.ID, u.ID, identity.RoleViewer); err != nil {
		t.Fatal(err)
	}
	token := func(args ...string) (int, string, string) {
		var out, errOut strings.Builder
		code := run(ctx, append([]string{"token", "--data-dir", dataDir, "--inbox-public-url", "https://inbox.example.com"}, args...), &out, &errOut)
		return code, strings.TrimSpace(out.String()), errOut.String()
	}
	if code, _, msg := token("--user", "ana@example.com"); code != 1 || !strings.Contains(msg, "choose one with --org") {
		t.Fatalf("two organizations: %d %s", code, msg)
	}
	if code, _, msg := token("--user", "ana@example.com", "--org", "Two", "--scopes", "inbox.emails,dunning.charges"); code != 1 || !strings.Contains(msg, "dunning.charges is not a scope of inbox") {
		t.Fatalf("foreign scope: %d %s", code, msg)
	}
	if code, _, msg := token("--user", "nobody@example.com"); code != 1 || !strings.Contains(msg, "no user") {
		t.Fatalf("unknown user: %d %s", code, msg)
	}
	code, tok, msg := token("--user", "ANA@example.com", "--org", "Two", "--scopes", "inbox.emails", "--resource", "api")
	if code != 0 {
		t.Fatalf("token: %d %s", code, msg)
	}
	_, secret, _ := loadSealer("", dataDir)
	keys, err := builtInKeys(db, secret)
	if err != nil {
		t.Fatal(err)
	}
	v := &oauth.JWTVerifier{Issuer: "https://inbox.example.com", Audience: "https://inbox.example.com/api/v1", Keys: oauth.KeySetSource{Keys: keys}}
	id, err := v.Verify(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if id.OrganizationID != org2.ID || id.UserID != u.ID || strings.Join(id.Scopes, " ") != "inbox.emails" {
		t.Fatalf("identity %+v", id)
	}
}

// TestTokenFindsTheRunningServe: serve records where it listens in the
// data directory, so a token minted without --inbox-addr is for the
// issuer serve verifies, even on a port other than the default; a
// different --inbox-addr still wins.
func TestTokenFindsTheRunningServe(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	addr := freePort(t)
	startCommand(t, []string{"serve", "--data-dir", dataDir, "--products", "inbox", "--inbox-addr", addr, "--inbox-smtp-addr", "off"}, "MCP endpoint")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"token", "--data-dir", dataDir, "--user", accounts.DemoOwnerEmail}, &out, &errOut); code != 0 {
		t.Fatalf("token: %s", errOut.String())
	}
	if status, hdr, body := initialize(t, "http://"+addr+"/mcp", strings.TrimSpace(out.String())); status != 200 {
		t.Fatalf("token without --inbox-addr: %d %v %s", status, hdr, body)
	}
	out.Reset()
	if code := run(context.Background(), []string{"token", "--data-dir", dataDir, "--user", accounts.DemoOwnerEmail, "--inbox-addr", "127.0.0.1:1"}, &out, &errOut); code != 0 {
		t.Fatalf("token: %s", errOut.String())
	}
	if status, _, _ := initialize(t, "http://"+addr+"/mcp", strings.TrimSpace(out.String())); status != 401 {
		t.Fatalf("a token for another address: %d, want 401", status)
	}
}
