package inbox

import (
	"context"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestPurgeRemovesWhatRetentionReleased deletes an inbox that received
// mail; the purge keeps it while the retention runs and removes it with
// its e-mails, raw message and agent runs after, leaving live data alone.
func TestPurgeRemovesWhatRetentionReleased(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		gone, goneAddr := createTestInbox(t, e, map[string]any{"label": "Old"})
		_, keptAddr := createTestInbox(t, e, map[string]any{"label": "Kept"})
		waitEmail(t, e, postMail(t, e, boletoMail(goneAddr, "a@supplier.example", "old")), "processed")
		kept := postMail(t, e, boletoMail(keptAddr, "a@supplier.example", "kept"))
		waitEmail(t, e, kept, "processed")
		if code, out := e.Do(e.Owner, "DELETE", "/api/v1/inboxes/"+gone, nil); code != 204 {
			t.Fatalf("delete: %d %s", code, out)
		}
		s := &service{db: db, cfg: Config{}.withDefaults()}
		count := func(q string, args ...any) int {
			var n int
			if err := db.Get(ctx, &n, q, args...); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if err := s.purge(ctx, time.Now().Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if count(`SELECT count(*) FROM inboxes WHERE id = ?`, gone) != 1 {
			t.Fatal("purged inside the retention period")
		}
		if err := s.purge(ctx, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n := count(`SELECT count(*) FROM inboxes WHERE id = ?`, gone) + count(`SELECT count(*) FROM emails WHERE inbox_id = ?`, gone); n != 0 {
			t.Fatalf("%d rows of the deleted inbox left", n)
		}
		if count(`SELECT count(*) FROM emails WHERE id = ?`, kept)+count(`SELECT count(*) FROM inbox_email_raw WHERE email_id = ?`, kept)+count(`SELECT count(*) FROM agent_runs WHERE email_id = ?`, kept) != 3 {
			t.Fatal("the purge touched live data")
		}
		if count(`SELECT count(*) FROM agent_runs`) != 1 || count(`SELECT count(*) FROM inbox_email_raw`) != 1 {
			t.Fatal("raw messages or agent runs of the purged e-mails are left")
		}
	})
}

// TestUsageResetStartsANewMonth resets a workspace whose counters belong
// to a past month and leaves the current month's alone.
func TestUsageResetStartsANewMonth(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		s := &service{db: db, cfg: Config{}.withDefaults()}
		for _, ws := range []string{e.MineWS.ID, e.TheirWS.ID} {
			if _, err := readWorkspaceSettings(ctx, db, map[string]string{e.MineWS.ID: e.Mine.ID, e.TheirWS.ID: e.Theirs.ID}[ws], ws); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec(ctx, `UPDATE inbox_workspace_settings SET usage_month = '2000-01', monthly_emails_used = 7 WHERE workspace_id = ?`, e.MineWS.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `UPDATE inbox_workspace_settings SET monthly_emails_used = 3 WHERE workspace_id = ?`, e.TheirWS.ID); err != nil {
			t.Fatal(err)
		}
		if err := (&usageResetWorker{s: s}).Work(ctx, nil); err != nil {
			t.Fatal(err)
		}
		var used []int
		if err := db.Select(ctx, &used, `SELECT monthly_emails_used FROM inbox_workspace_settings WHERE workspace_id IN (?, ?) ORDER BY monthly_emails_used`, e.MineWS.ID, e.TheirWS.ID); err != nil {
			t.Fatal(err)
		}
		if len(used) != 2 || used[0] != 0 || used[1] != 3 {
			t.Fatalf("after the reset: %v", used)
		}
	})
}
