package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestMailContextReadsWhatTheLongWayReads: the one read of the intake and
// processing answers the inbox, the settings (with the month's usage) and
// the tenant exactly as getInbox, readWorkspaceSettings and withTenant do, on
// both engines; it says it cannot tell the settings when there are none
// yet or they count an earlier month, and leaves out a deleted workspace;
// a deleted inbox is not found.
func TestMailContextReadsWhatTheLongWayReads(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
		ib, err := inboxByAddress(ctx, db, "contas@inbox.localhost")
		if err != nil {
			t.Fatal(err)
		}
		read := func() mailContext {
			t.Helper()
			mc, err := readMailContext(ctx, db, ib.OrganizationID, ib.WorkspaceID, ib.ID)
			if err != nil {
				t.Fatal(err)
			}
			return mc
		}
		asJSON := func(v any) string {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}

		if _, err := db.Exec(ctx, `DELETE FROM inbox_workspace_settings WHERE workspace_id = ?`, ib.WorkspaceID); err != nil {
			t.Fatal(err)
		}
		if mc := read(); mc.settingsOK {
			t.Fatalf("no settings row, yet settingsOK: %+v", mc.settings)
		}
		for range 3 {
			if err := addUsage(ctx, db, ib.OrganizationID, ib.WorkspaceID, 1, 0.5); err != nil {
				t.Fatal(err)
			}
		}
		mc := read()
		want, err := readWorkspaceSettings(ctx, db, ib.OrganizationID, ib.WorkspaceID)
		if err != nil {
			t.Fatal(err)
		}
		if !mc.settingsOK || asJSON(mc.settings) != asJSON(want) || want.MonthlyEmailsUsed != 3 || want.MonthlyCostUsed != 1.5 {
			t.Fatalf("settings %+v (ok %v), want %+v", mc.settings, mc.settingsOK, want)
		}
		if asJSON(mc.inbox) != asJSON(ib) {
			t.Fatalf("inbox %+v, want %+v", mc.inbox, ib)
		}
		long := withTenant(ctx, e.Acc, ib.OrganizationID, ib.WorkspaceID, map[string]any{})
		if got := mc.tenant.add(ib.OrganizationID, ib.WorkspaceID, map[string]any{}); asJSON(got) != asJSON(long) || len(long) != 2 {
			t.Fatalf("tenant %s, want %s", asJSON(got), asJSON(long))
		}

		if _, err := db.Exec(ctx, `UPDATE inbox_workspace_settings SET usage_month = '2020-01' WHERE workspace_id = ?`, ib.WorkspaceID); err != nil {
			t.Fatal(err)
		}
		if mc := read(); mc.settingsOK {
			t.Fatalf("settings of an earlier month, yet settingsOK: %+v", mc.settings)
		}

		if _, err := db.Exec(ctx, `UPDATE workspaces SET deleted_at = ? WHERE id = ?`, store.Now(), ib.WorkspaceID); err != nil {
			t.Fatal(err)
		}
		if got := read().tenant.add(ib.OrganizationID, ib.WorkspaceID, map[string]any{}); got["workspace"] != nil || got["organization"] == nil {
			t.Fatalf("tenant of a deleted workspace: %s", asJSON(got))
		}
		if _, err := db.Exec(ctx, `UPDATE inboxes SET deleted_at = ? WHERE id = ?`, store.Now(), ib.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := readMailContext(ctx, db, ib.OrganizationID, ib.WorkspaceID, ib.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a deleted inbox: %v", err)
		}
	})
}
