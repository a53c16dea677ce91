package inbox

import (
	"context"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestWorkspaceSettingsDefaultsAndUsage: a workspace without settings
// gets the defaults on first read; usage adds up (concurrently too);
// counters of an earlier month start at zero; another organization's
// workspace is not found.
func TestWorkspaceSettingsDefaultsAndUsage(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		ctx := context.Background()
		ws, err := readWorkspaceSettings(ctx, db, e.Mine.ID, e.MineWS.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ws.Source != defaultSource || ws.MonthlyCostLimit != nil || ws.MonthlyEmailsLimit != nil || ws.CustomMetadataJSON != "{}" ||
			ws.UsageMonth != usageMonth(store.Now()) || ws.MonthlyEmailsUsed != 0 || ws.OrganizationID != e.Mine.ID {
			t.Fatalf("defaults: %+v", ws)
		}
		if _, err := readWorkspaceSettings(ctx, db, e.Theirs.ID, e.MineWS.ID); err != store.ErrNotFound {
			t.Fatalf("another organization's workspace: %v", err)
		}
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				if err := addUsage(ctx, db, e.Mine.ID, e.MineWS.ID, 1, 0.25); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		ws, _ = readWorkspaceSettings(ctx, db, e.Mine.ID, e.MineWS.ID)
		if ws.MonthlyEmailsUsed != 5 || ws.MonthlyCostUsed != 1.25 {
			t.Fatalf("usage: %+v", ws)
		}
		// Inside a transaction, as intake calls it.
		err = db.WithTx(ctx, func(tx *store.Tx) error { return addUsage(ctx, tx, e.Mine.ID, e.MineWS.ID, 1, 0) })
		if err != nil {
			t.Fatal(err)
		}
		// A row still counting an earlier month starts over (the month's
		// slots are that month's too).
		if _, err := db.Exec(ctx, `UPDATE inbox_workspace_settings SET usage_month = '2020-01' WHERE workspace_id = ?`, e.MineWS.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `UPDATE inbox_usage_counts SET usage_month = '2020-01' WHERE workspace_id = ?`, e.MineWS.ID); err != nil {
			t.Fatal(err)
		}
		if err := addUsage(ctx, db, e.Mine.ID, e.MineWS.ID, 1, 0.5); err != nil {
			t.Fatal(err)
		}
		ws, _ = readWorkspaceSettings(ctx, db, e.Mine.ID, e.MineWS.ID)
		if ws.UsageMonth != usageMonth(store.Now()) || ws.MonthlyEmailsUsed != 1 || ws.MonthlyCostUsed != 0.5 {
			t.Fatalf("after the month turned: %+v", ws)
		}
		var stale int
		if err := db.Get(ctx, &stale, `SELECT COUNT(*) FROM inbox_usage_counts WHERE workspace_id = ? AND usage_month = '2020-01'`, e.MineWS.ID); err != nil || stale != 0 {
			t.Fatalf("the earlier month's slots: %d left (%v)", stale, err)
		}
		if err := addUsage(ctx, db, e.Theirs.ID, e.MineWS.ID, 1, 0); err != store.ErrNotFound {
			t.Fatalf("usage on another organization's workspace: %v", err)
		}
	})
}
