package inbox

import (
	"context"
	"encoding/json"
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
	t.Parallel()
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

// TestEmailListColumns: a listed e-mail with every field set shows what
// emails_get shows of it, body aside — the listing reads every column its
// view shows — and the listing does not read the bodies (both engines).
func TestEmailListColumns(t *testing.T) {
	t.Parallel()
	if strings.Contains(emailListColumns, "body_") {
		t.Fatalf("the listing reads the bodies: %q", emailListColumns)
	}
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		a := mailInbox(t, e, e.Owner, "a@inbox.localhost", nil)
		org, ws := e.Mine.ID, e.MineWS.ID
		seedEmailRows(t, db, "full", org, ws, a, a, 1)
		ctx := context.Background()
		at := store.Now()
		if _, err := db.Exec(ctx, `UPDATE emails SET agent_id = 'agent-1', message_id = '<m@x>', to_addresses = '["to@x.com"]',
			cc_addresses = '["cc@x.com"]', bcc_addresses = '["bcc@x.com"]', header_to = '["h@x.com"]', forwarded = 1,
			forwarded_for = 'f@x.com', rejection_reason = 'r', spam_verdict = 'ham', virus_verdict = 'clean', body_text = 'text',
			body_html = '<p>html</p>', attachments = '[{"filename":"b.pdf","content_type":"application/pdf","size":3}]',
			agent_metadata = '{"k":"v"}', custom_metadata = '{"c":1}', last_error = 'e', sent_at = ?, processed_at = ?
			WHERE organization_id = ?`, at, at, org); err != nil {
			t.Fatal(err)
		}
		listed, err := listEmails(ctx, db, org, ws, emailFilter{Limit: 10})
		if err != nil || len(listed) != 1 {
			t.Fatalf("listing: %d rows, %v", len(listed), err)
		}
		var full emailRecord
		if err := db.Get(ctx, &full, `SELECT `+emailColumns+` FROM emails WHERE id = ?`, listed[0].ID); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(emailListJSON(listed[0]))
		want, _ := json.Marshal(emailListJSON(full))
		if string(got) != string(want) {
			t.Fatalf("listed:\n%s\nemails_get without the body:\n%s", got, want)
		}
		if emailCursorKey(listed[0]) != emailCursorKey(full) {
			t.Fatalf("cursor %q, want %q", emailCursorKey(listed[0]), emailCursorKey(full))
		}
		if v := emailJSON(full); v.Body == nil || v.Body.Text == nil || v.AgentID == nil || v.SentAt == nil || len(v.Cc) != 1 {
			t.Fatalf("the fixture does not set every field: %+v", v)
		}
	})
}

// TestEmailsListCursors: paging with the listing's cursors visits every
// e-mail once, newest first, and a cursor made before the listing was
// ordered by received_at (an id alone) continues from the same place; a
// cursor naming no e-mail of the workspace is refused (both engines).
func TestEmailsListCursors(t *testing.T) {
	t.Parallel()
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
