package inbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/smtp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// dedupeMessage is a small message to an address; messageID "" leaves
// the header out.
func dedupeMessage(to, messageID, body string) []byte {
	h := "From: Fornecedor <cobranca@fornecedor.example>\r\nTo: " + to + "\r\nSubject: Fatura\r\n"
	if messageID != "" {
		h += "Message-ID: <" + messageID + ">\r\n"
	}
	return []byte(h + "\r\n" + body + "\r\n")
}

// dedupeCounts is what a delivery writes: e-mail rows, the intake's
// events (processing, which runs meanwhile, emits its own), processing
// jobs, and the workspace's usage.
type dedupeCounts struct{ emails, events, jobs, usage int }

func countDedupe(t *testing.T, s *mailServer, e *testEnv) dedupeCounts {
	t.Helper()
	ctx := context.Background()
	var c dedupeCounts
	if err := s.db.Get(ctx, &c.emails, `SELECT COUNT(*) FROM emails`); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Get(ctx, &c.events, `SELECT COUNT(*) FROM system_events WHERE slug IN ('email.received', 'email.rejected')`); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Get(ctx, &c.jobs, `SELECT COUNT(*) FROM river_job WHERE kind = ?`, processArgs{}.Kind()); err != nil {
		t.Fatal(err)
	}
	c.usage = mailUsage(t, s, e.Mine.ID, e.MineWS.ID)
	return c
}

// intakeEvents counts the email.received events about an e-mail.
func intakeEvents(t *testing.T, db *store.DB, emailID string) int {
	t.Helper()
	n := 0
	for _, slug := range mailEvents(t, db, emailID) {
		if slug == "email.received" {
			n++
		}
	}
	return n
}

// TestDedupeSMTP: a relay's second delivery of a message over SMTP is
// answered 250 and writes nothing; what is not the same message (other
// bytes under the same Message-ID, no Message-ID, another inbox) is
// stored.
func TestDedupeSMTP(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		s := mailService(t, e, Config{SMTPAddr: "127.0.0.1:0"})
		addr := s.addr().String()
		contas := mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
		outra := mailInbox(t, e, e.Owner, "outra@inbox.localhost", nil)
		send := func(raw []byte, rcpts ...string) {
			t.Helper()
			if err := smtpSend(t, addr, "bounces@fornecedor.example", rcpts, raw); err != nil {
				t.Fatalf("delivery refused: %v", err)
			}
		}

		raw := dedupeMessage("contas@inbox.localhost", "fatura-1@fornecedor.example", "primeira")
		send(raw, "contas@inbox.localhost")
		first := countDedupe(t, s, e)
		send(raw, "contas@inbox.localhost")
		send(raw, "CONTAS@inbox.localhost")
		if got := countDedupe(t, s, e); got != first {
			t.Fatalf("a retry wrote something: %+v, then %+v", first, got)
		}
		rows := mailRowsBySum(t, db, raw)
		if len(rows) != 1 || rows[0].InboxID != contas {
			t.Fatalf("%d rows", len(rows))
		}
		if n := intakeEvents(t, db, rows[0].ID); n != 1 {
			t.Fatalf("%d email.received events", n)
		}
		mailProcessedAtIntake(t, db, rows[0].ID)

		// Same Message-ID, other bytes: another e-mail.
		edited := dedupeMessage("contas@inbox.localhost", "fatura-1@fornecedor.example", "segunda versão")
		send(edited, "contas@inbox.localhost")
		var n int
		if err := db.Get(context.Background(), &n, `SELECT COUNT(*) FROM emails WHERE inbox_id = ? AND message_id = ?`, contas, "fatura-1@fornecedor.example"); err != nil || n != 2 {
			t.Fatalf("same Message-ID, other content: %d e-mails (%v), want 2", n, err)
		}

		// No Message-ID: never taken for a retry.
		anon := dedupeMessage("contas@inbox.localhost", "", "sem identificador")
		send(anon, "contas@inbox.localhost")
		send(anon, "contas@inbox.localhost")
		if rows := mailRowsBySum(t, db, anon); len(rows) != 2 {
			t.Fatalf("without Message-ID: %d rows, want 2", len(rows))
		}

		// The same message for another inbox is that inbox's e-mail; a
		// retry to both inboxes, after the first went to one of them,
		// stores only the one that is missing.
		send(raw, "outra@inbox.localhost")
		if rows := mailRowsBySum(t, db, raw); len(rows) != 2 {
			t.Fatalf("another inbox: %d rows, want 2", len(rows))
		}
		two := dedupeMessage("contas@inbox.localhost, outra@inbox.localhost", "fatura-2@fornecedor.example", "para dois")
		send(two, "contas@inbox.localhost")
		send(two, "contas@inbox.localhost", "outra@inbox.localhost")
		send(two, "outra@inbox.localhost", "contas@inbox.localhost")
		rows = mailRowsBySum(t, db, two)
		got := []string{}
		for _, r := range rows {
			got = append(got, r.InboxID)
		}
		slices.Sort(got)
		want := []string{contas, outra}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("partial retry: e-mails in %v, want one in each of %v", got, want)
		}
	})
}

// TestDedupeHTTP: the HTTP intake answers a retried post 202 with the
// e-mail stored the first time, marked duplicate — also when the first
// delivery came over SMTP.
func TestDedupeHTTP(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		s := mailService(t, e, Config{SMTPAddr: "127.0.0.1:0"})
		contas := mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
		outra := mailInbox(t, e, e.Owner, "outra@inbox.localhost", nil)

		raw := dedupeMessage("contas@inbox.localhost", "http-1@fornecedor.example", "via http")
		code, body := httpDeliver(e, e.Owner, "", raw)
		if code != 202 || strings.Contains(body, `"duplicate"`) {
			t.Fatalf("first: %d %s", code, body)
		}
		firstAns := httpDelivered(t, body)
		before := countDedupe(t, s, e)
		code, body = httpDeliver(e, e.Owner, "", raw)
		again := httpDelivered(t, body)
		if code != 202 || len(again) != 1 || again[0].ID != firstAns[0].ID || again[0].InboxID != contas || !again[0].Duplicate {
			t.Fatalf("retry: %d %s (first %+v)", code, body, firstAns)
		}
		if got := countDedupe(t, s, e); got != before {
			t.Fatalf("a retry wrote something: %+v, then %+v", before, got)
		}

		// Explicit recipients: the inbox that has it answers duplicate, the
		// other stores it.
		code, body = httpDeliver(e, e.Owner, "?to=contas@inbox.localhost&to=outra@inbox.localhost", raw)
		both := httpDelivered(t, body)
		if code != 202 || len(both) != 2 {
			t.Fatalf("%d %s", code, body)
		}
		for _, r := range both {
			if (r.InboxID == contas) != r.Duplicate || (r.InboxID == contas && r.ID != firstAns[0].ID) || (r.InboxID != contas && r.InboxID != outra) {
				t.Fatalf("%s", body)
			}
		}

		// First over SMTP, then posted: one e-mail, the SMTP one.
		viaSMTP := dedupeMessage("contas@inbox.localhost", "cross-1@fornecedor.example", "primeiro por SMTP")
		if err := smtpSend(t, s.addr().String(), "bounces@fornecedor.example", []string{"contas@inbox.localhost"}, viaSMTP); err != nil {
			t.Fatal(err)
		}
		code, body = httpDeliver(e, e.Owner, "", viaSMTP)
		rows := mailRowsBySum(t, db, viaSMTP)
		if ans := httpDelivered(t, body); code != 202 || len(rows) != 1 || len(ans) != 1 || ans[0].ID != rows[0].ID || !ans[0].Duplicate || rows[0].Intake != intakeSMTP {
			t.Fatalf("%d %s, %d rows", code, body, len(rows))
		}

		// Another organization posting the same bytes to its own inbox is
		// its own e-mail, and learns nothing of ours.
		deles := mailInbox(t, e, e.Other, "deles@inbox.localhost", nil)
		code, body = httpDeliver(e, e.Other, "?to=deles@inbox.localhost", raw)
		if ans := httpDelivered(t, body); code != 202 || len(ans) != 1 || ans[0].Duplicate || ans[0].InboxID != deles {
			t.Fatalf("theirs: %d %s", code, body)
		}
	})
}

// TestDedupeConcurrent delivers each message four times at once, twice
// over SMTP and twice over HTTP: every delivery succeeds, one e-mail is
// stored, and every HTTP answer names it.
func TestDedupeConcurrent(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		s := mailService(t, e, Config{SMTPAddr: "127.0.0.1:0"})
		addr := s.addr().String()
		mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
		token := e.Token(e.Owner, "api")
		for round := range 5 {
			raw := dedupeMessage("contas@inbox.localhost", fmt.Sprintf("race-%d@fornecedor.example", round), "ao mesmo tempo")
			// Each SMTP client is brought to the end of DATA: the final
			// dot, which makes the server store the message, is sent when
			// the writer closes, after the barrier.
			var clients []*smtp.Client
			var writers []io.WriteCloser
			for range 2 {
				c, err := smtp.Dial(addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if err := c.Mail("bounces@fornecedor.example"); err != nil {
					t.Fatal(err)
				}
				if err := c.Rcpt("contas@inbox.localhost"); err != nil {
					t.Fatal(err)
				}
				w, err := c.Data()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.Write(raw); err != nil {
					t.Fatal(err)
				}
				clients, writers = append(clients, c), append(writers, w)
			}
			start := make(chan struct{})
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			ids := make(chan string, 2)
			for _, w := range writers {
				wg.Go(func() {
					<-start
					errs <- w.Close()
				})
			}
			for range 2 {
				wg.Go(func() {
					<-start
					code, body := e.DoToken(token, "POST", "/api/v1"+intakeHTTPPath, raw, "Content-Type", "message/rfc822")
					if code != 202 {
						errs <- fmt.Errorf("HTTP %d %s", code, body)
						return
					}
					var doc struct{ Data []intakeResultJSON }
					_ = json.Unmarshal([]byte(body), &doc)
					if len(doc.Data) != 1 {
						errs <- fmt.Errorf("HTTP answer %s", body)
						return
					}
					ids <- doc.Data[0].ID
					errs <- nil
				})
			}
			close(start)
			wg.Wait()
			close(errs)
			close(ids)
			for err := range errs {
				if err != nil {
					t.Fatalf("round %d: a delivery failed: %v", round, err)
				}
			}
			for _, c := range clients {
				_ = c.Quit()
			}
			rows := mailRowsBySum(t, db, raw)
			if len(rows) != 1 {
				t.Fatalf("round %d: %d e-mails from four deliveries of one message", round, len(rows))
			}
			for id := range ids {
				if id != rows[0].ID {
					t.Fatalf("round %d: HTTP answered %s, the e-mail is %s", round, id, rows[0].ID)
				}
			}
			if n := intakeEvents(t, db, rows[0].ID); n != 1 {
				t.Fatalf("round %d: %d email.received events", round, n)
			}
			mailProcessedAtIntake(t, db, rows[0].ID)
		}
		var events int
		if err := db.Get(context.Background(), &events, `SELECT COUNT(*) FROM system_events WHERE slug = 'email.received'`); err != nil || events != 5 {
			t.Fatalf("%d email.received events for five messages (%v)", events, err)
		}
	})
}

// TestDedupeRaceCommitsFirst: a delivery that does not see a concurrent
// one's e-mail yet (that transaction has not committed) is settled by
// the unique index: once the other commits, the delivery answers its
// e-mail and leaves nothing of its own. On PostgreSQL the test waits
// until the delivery is blocked on the index; on SQLite it waits for the
// write lock instead and finds the e-mail on its first look.
func TestDedupeRaceCommitsFirst(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e, s := contasIntake(t, db)
		ctx := context.Background()
		ib, err := inboxByAddress(ctx, db, "contas@inbox.localhost")
		if err != nil {
			t.Fatal(err)
		}
		raw := dedupeMessage("contas@inbox.localhost", "slow-1@fornecedor.example", "devagar")
		msg, err := parseMessage(raw)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		in := incoming{raw: raw, digest: hex.EncodeToString(sum[:]), msg: msg, via: intakeSMTP, receivedAt: store.Now()}
		in.dedupeKey = dedupeKey(msg.MessageID, in.digest)
		winner := newEmailRecord(ib, []string{ib.Email}, in, verdict{Approved: true})
		before := countDedupe(t, s, e)

		inserted, commit, committed := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			committed <- db.WithTx(ctx, func(tx *store.Tx) error {
				if inserted, err := insertEmailKeyed(ctx, tx, &winner, raw, in.dedupeKey); err != nil || !inserted {
					return fmt.Errorf("the winner's insert: %v %v", inserted, err)
				}
				close(inserted)
				<-commit
				return nil
			})
		}()
		select {
		case <-inserted:
		case err := <-committed:
			t.Fatal(err)
		}
		type result struct {
			got []receivedEmail
			err error
		}
		done := make(chan result, 1)
		go func() {
			got, err := s.receive(ctx, raw, "bounces@fornecedor.example", []string{"contas@inbox.localhost"}, intakeHTTP)
			done <- result{got, err}
		}()
		if db.Dialect() == store.Postgres {
			deadline := time.Now().Add(10 * time.Second)
			for {
				var waiting int
				if err := db.Get(ctx, &waiting, `SELECT COUNT(*) FROM pg_stat_activity
					WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO emails%'`); err != nil {
					t.Fatal(err)
				}
				if waiting > 0 {
					break
				}
				if time.Now().After(deadline) {
					close(commit)
					t.Fatal("the delivery never waited on the unique index")
				}
				time.Sleep(20 * time.Millisecond)
			}
		} else {
			time.Sleep(200 * time.Millisecond)
		}
		select {
		case r := <-done:
			t.Fatalf("the delivery finished before the concurrent one committed: %+v %v", r.got, r.err)
		default:
		}
		close(commit)
		if err := <-committed; err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.err != nil || len(r.got) != 1 || r.got[0].ID != winner.ID || !r.got[0].Duplicate {
			t.Fatalf("%v %+v, want the e-mail %s as a duplicate", r.err, r.got, winner.ID)
		}
		after := countDedupe(t, s, e)
		if after.emails != before.emails+1 || after.events != before.events || after.jobs != before.jobs || after.usage != before.usage {
			t.Fatalf("the losing delivery left something: %+v, then %+v (the winner's row only)", before, after)
		}
	})
}

// TestDedupeMigration: 00120 applies over a database that already holds
// a message received twice (before there was deduplication), keeps both
// rows, and deduplicates what arrives after it; and it migrates down.
func TestDedupeMigration(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.OpenUnmigrated(t, d)
			if _, err := db.MigrateTo(ctx, 110, Migrations); err != nil {
				t.Fatal(err)
			}
			e := newTestEnv(t, db, Config{SMTPAddr: "off"})
			s := mailService(t, e, Config{SMTPAddr: "off"})
			mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
			ib, err := inboxByAddress(ctx, db, "contas@inbox.localhost")
			if err != nil {
				t.Fatal(err)
			}
			raw := dedupeMessage("contas@inbox.localhost", "old-1@fornecedor.example", "antes da migração")
			msg, _ := parseMessage(raw)
			sum := sha256.Sum256(raw)
			in := incoming{raw: raw, digest: hex.EncodeToString(sum[:]), msg: msg, via: intakeSMTP, receivedAt: store.Now()}
			for range 2 { // what the intake did before 00120
				r := newEmailRecord(ib, []string{ib.Email}, in, verdict{Approved: true})
				if err := insertEmailBefore00120(ctx, db, &r, raw); err != nil {
					t.Fatal(err)
				}
			}
			applied, err := db.MigrateTo(ctx, 120, Migrations)
			if err != nil {
				t.Fatalf("migrating over duplicates: %v", err)
			}
			// 00120 first, then whatever later migrations the Inbox has.
			if len(applied) == 0 || applied[0].Version != 120 {
				t.Fatalf("applied %+v", applied)
			}
			if rows := mailRowsBySum(t, db, raw); len(rows) != 2 {
				t.Fatalf("%d rows after the migration, want the two kept", len(rows))
			}
			if _, err := db.Migrate(ctx, Migrations); err != nil { // the later ones
				t.Fatal(err)
			}
			// Rows from before carry no key: the next delivery is stored,
			// the one after it is the retry.
			for i, wantDup := range []bool{false, true} {
				got, err := s.receive(ctx, raw, "", []string{"contas@inbox.localhost"}, intakeSMTP)
				if err != nil || len(got) != 1 || got[0].Duplicate != wantDup {
					t.Fatalf("delivery %d: %v %+v", i, err, got)
				}
			}
			if rows := mailRowsBySum(t, db, raw); len(rows) != 3 {
				t.Fatalf("%d rows, want 3", len(rows))
			}
		})
		t.Run(string(d)+"/down", func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.Open(t, d, Migrations)
			// Down past 00120 (the later migrations first).
			for {
				cur, _, err := db.SchemaVersion(ctx, Migrations)
				if err != nil {
					t.Fatal(err)
				}
				if cur < 120 {
					break
				}
				if err := db.MigrateDown(ctx, Migrations); err != nil {
					t.Fatalf("down: %v", err)
				}
			}
			if _, err := db.Exec(ctx, `SELECT dedupe_key FROM emails`); err == nil {
				t.Fatal("dedupe_key is still there")
			}
			if applied, err := db.Migrate(ctx, Migrations); err != nil || len(applied) == 0 || applied[0].Version != 120 {
				t.Fatalf("up again: %v %+v", err, applied)
			}
		})
	}
}

// insertEmailBefore00120 writes an e-mail as the intake did before
// emails.dedupe_key existed.
func insertEmailBefore00120(ctx context.Context, q store.Querier, r *emailRecord, raw []byte) error {
	if _, err := q.Exec(ctx, `INSERT INTO emails (`+emailColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.OrganizationID, r.WorkspaceID, r.InboxID, r.AgentID, r.MessageID, r.Status, r.Subject,
		r.FromAddress, r.ToJSON, r.CcJSON, r.BccJSON, r.HeaderToJSON, r.Forwarded, r.ForwardedFor,
		r.RejectionReason, r.SpamVerdict, r.VirusVerdict, r.BodyText, r.BodyHTML, r.AttachmentsJSON, r.RawSize, r.RawSHA256,
		r.Intake, r.AgentMetadataJSON, r.CustomMetadataJSON, r.LastError, r.SentAt, r.ReceivedAt, r.ProcessedAt, r.CreatedAt, r.UpdatedAt); err != nil {
		return err
	}
	_, err := q.Exec(ctx, `INSERT INTO inbox_email_raw (email_id, raw) VALUES (?, ?)`, r.ID, raw)
	return err
}
