package main

import (
	"context"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
)

// orgs add-workspace adds a workspace to an organization named by id or
// name (the e2e tests use it to have something the Inbox may delete).
func TestAddWorkspaceCommand(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	db := []string{"--data-dir", dataDir}
	code, orgID, errOut := cli(t, append([]string{"orgs", "create", "--name", "Acme"}, db...)...)
	if code != 0 {
		t.Fatalf("orgs create: %d %s", code, errOut)
	}
	orgID = strings.TrimSpace(orgID)
	code, wsID, errOut := cli(t, append([]string{"orgs", "add-workspace", "--org", "Acme", "--label", "Billing", "--external-id", "billing"}, db...)...)
	if code != 0 {
		t.Fatalf("add-workspace: %d %s", code, errOut)
	}
	if code, _, errOut := cli(t, append([]string{"orgs", "add-workspace", "--org", orgID, "--label", "Again", "--external-id", "billing"}, db...)...); code != 1 || !strings.Contains(errOut, `external id "billing"`) {
		t.Fatalf("duplicate external id: %d %s", code, errOut)
	}
	if code, _, errOut := cli(t, append([]string{"orgs", "add-workspace", "--org", "Acme"}, db...)...); code != 2 || !strings.Contains(errOut, "--label is required") {
		t.Fatalf("no label: %d %s", code, errOut)
	}
	conn, err := store.Open(context.Background(), databaseURL(dataDir, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w, err := accounts.New(conn, accounts.Options{}).GetWorkspaceByExternalID(context.Background(), orgID, "billing")
	if err != nil || w.ID != strings.TrimSpace(wsID) || w.Label != "Billing" {
		t.Fatalf("workspace %+v %v, printed %q", w, err, wsID)
	}
}
