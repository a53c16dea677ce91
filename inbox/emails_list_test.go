package inbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestEmailsListPlans pins the plans of emails_list's statement
// (emailsListQuery) on both engines: with a few thousand e-mails, every
// combination of the filters the route takes reads its index in the
// listing's order and stops at the page, with no sort over the matching
// rows (docs/decisions.md, "Listings at scale"). PostgreSQL plans with the
// table analyzed and sequential scans off, so a plan with no fitting index
// shows as a Sort.
func TestEmailsListPlans(t *testing.T) {
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		a := mailInbox(t, e, e.Owner, "a@inbox.localhost", nil)
		b := mailInbox(t, e, e.Owner, "b@inbox.localhost", nil)
		org, ws := e.Mine.ID, e.MineWS.ID
		seedEmailRows(t, db, "plan", org, ws, a, b, 4000)

		from, to := seedBase.Add(-time.Hour), seedBase.Add(-time.Minute)
		after := seedBase.Add(-10 * time.Minute)
		cases := []struct {
			name  string
			f     emailFilter
			after bool
			index string
		}{
			{"first page", emailFilter{}, false, "emails_list_idx"},
			{"a later page", emailFilter{}, true, "emails_list_idx"},
			{"status", emailFilter{Status: emailFailed}, false, "emails_list_status_idx"},
			{"status, a later page", emailFilter{Status: emailFailed}, true, "emails_list_status_idx"},
			{"inbox", emailFilter{InboxID: a}, true, "emails_list_inbox_idx"},
			{"inbox and status", emailFilter{InboxID: a, Status: emailFailed}, true, "emails_list_inbox_status_idx"},
			{"dates", emailFilter{ReceivedFrom: &from, ReceivedTo: &to}, true, "emails_list_idx"},
			{"status and dates", emailFilter{Status: emailFailed, ReceivedFrom: &from}, false, "emails_list_status_idx"},
			{"from", emailFilter{From: "sender7@"}, true, "emails_list_idx"},
			// Any of the indexes reads in order here; SQLite, without statistics,
			// takes the date range of the first.
			{"everything", emailFilter{InboxID: b, Status: emailProcessed, From: "sender", ReceivedFrom: &from, ReceivedTo: &to}, true, "emails_list"},
		}
		for _, c := range cases {
			c.f.Limit = 50
			var at *time.Time
			if c.after {
				at = &after
			}
			query, args := emailsListQuery(db.Dialect(), org, ws, c.f, at, "plan-9999999999")
			plan := storetest.Explain(t, db, query, args...)
			if !strings.Contains(plan, c.index) || strings.Contains(plan, "Sort") || strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("%s: the plan does not read %s in order:\n%s", c.name, c.index, plan)
			}
		}
	})
}

// TestEmailListColumns: the listing reads every column but the two bodies
// (a reformatted emailColumns that the replacer no longer matches would
// read them again).
func TestEmailListColumns(t *testing.T) {
	all := strings.Split(emailColumns, ",")
	listed := strings.Split(emailListColumns, ",")
	if len(listed) != len(all)-2 || strings.Contains(emailListColumns, "body_") {
		t.Fatalf("listing columns: %d of %d, %q", len(listed), len(all), emailListColumns)
	}
}

// TestEmailsListCursors: paging with the listing's cursors visits every
// e-mail once, newest first, and a cursor made before the listing was
// ordered by received_at (an id alone) continues from the same place; a
// cursor naming no e-mail of the workspace is refused (both engines).
func TestEmailsListCursors(t *testing.T) {
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		a := mailInbox(t, e, e.Owner, "a@inbox.localhost", nil)
		b := mailInbox(t, e, e.Owner, "b@inbox.localhost", nil)
		org, ws := e.Mine.ID, e.MineWS.ID
		seedEmailRows(t, db, "page", org, ws, a, b, 25)
		ctx := context.Background()
		var seen []string
		f := emailFilter{Limit: 10}
		for {
			rows, err := listEmails(ctx, db, org, ws, f)
			if err != nil {
				t.Fatal(err)
			}
			more := len(rows) > f.Limit
			if more {
				rows = rows[:f.Limit]
			}
			for i, r := range rows {
				seen = append(seen, r.ID)
				if i > 0 && r.ReceivedAt.After(rows[i-1].ReceivedAt) {
					t.Fatalf("not newest first: %v after %v", r.ReceivedAt, rows[i-1].ReceivedAt)
				}
			}
			if !more {
				break
			}
			last := rows[len(rows)-1]
			// The old cursor (the id alone) continues where the new one does.
			old, err := listEmails(ctx, db, org, ws, emailFilter{Limit: f.Limit, Before: last.ID})
			if err != nil {
				t.Fatal(err)
			}
			f.Before = emailCursorKey(last)
			next, err := listEmails(ctx, db, org, ws, f)
			if err != nil || len(old) != len(next) || len(next) == 0 || old[0].ID != next[0].ID {
				t.Fatalf("the old cursor continues elsewhere: %v, %d vs %d", err, len(old), len(next))
			}
		}
		if len(seen) != 25 || seen[0] != "page-0000000001" || seen[24] != "page-0000000025" {
			t.Fatalf("pages visited %d e-mails: %v", len(seen), seen)
		}
		for _, bad := range []string{"page-0000009999", "x|page-0000000001", "12|"} {
			if _, err := listEmails(ctx, db, org, ws, emailFilter{Limit: 10, Before: bad}); err != errEmailCursor {
				t.Errorf("cursor %q: %v", bad, err)
			}
		}
		// Another workspace's e-mail is no cursor here.
		if _, err := listEmails(ctx, db, e.Theirs.ID, e.TheirWS.ID, emailFilter{Limit: 10, Before: "page-0000000001"}); err != errEmailCursor {
			t.Errorf("another workspace's e-mail as a cursor: %v", err)
		}
	})
}
