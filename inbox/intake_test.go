package inbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// mailFixture reads a test message from testdata/mail.
func mailFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mail", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mailInbox creates an inbox through the API as user and returns its id.
// body holds the fields beyond label and email.
func mailInbox(t *testing.T, e *testEnv, user accounts.User, email string, body map[string]any) string {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	body["label"] = strings.Split(email, "@")[0]
	body["email"] = email
	code, out := e.Do(user, "POST", "/api/v1/inboxes", body)
	if code != 201 {
		t.Fatalf("create inbox %s: %d %s", email, code, out)
	}
	var doc struct{ Data struct{ ID string } }
	_ = json.Unmarshal([]byte(out), &doc)
	return doc.Data.ID
}

// mailServer is a service with its SMTP intake, started, as a test drives
// them: receive and the other service methods, and the listener's address.
type mailServer struct {
	*service
	*smtpIntake
}

// startMailServer starts s's SMTP intake, stopped when the test ends.
func startMailServer(t *testing.T, s *service) *mailServer {
	t.Helper()
	ms := &mailServer{service: s, smtpIntake: &smtpIntake{s: s}}
	if err := ms.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ms.shutdown(context.Background()) })
	return ms
}

// mailService is a second service on the test environment's database and
// job queue, for what the harness's own cannot show: the SMTP listener's
// address, and receive called directly.
func mailService(t *testing.T, e *testEnv, cfg Config) *mailServer {
	t.Helper()
	cfg = cfg.withDefaults()
	s := &service{db: e.DB, accounts: e.Acc, jobs: e.Jobs, cfg: cfg}
	s.hooks = webhooks.New(e.DB, e.Jobs, webhooks.Config{Product: "inbox"})
	return startMailServer(t, s)
}

// contasIntake is a test's environment and its mail service (no SMTP
// listener), with the owner's inbox contas@inbox.localhost.
func contasIntake(t *testing.T, db *store.DB) (*testEnv, *mailServer) {
	t.Helper()
	e := newTestEnv(t, db, Config{SMTPAddr: "off"})
	s := mailService(t, e, Config{SMTPAddr: "off"})
	mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
	return e, s
}

// mailRow reads an e-mail row by id, whatever its organization.
func mailRow(t *testing.T, db *store.DB, id string) emailRecord {
	t.Helper()
	var r emailRecord
	if err := db.Get(context.Background(), &r, `SELECT `+emailColumns+` FROM emails WHERE id = ?`, id); err != nil {
		t.Fatalf("e-mail %s: %v", id, err)
	}
	return r
}

// mailRowsBySum finds the e-mails stored from one raw message.
func mailRowsBySum(t *testing.T, db *store.DB, raw []byte) []emailRecord {
	t.Helper()
	sum := sha256.Sum256(raw)
	var rows []emailRecord
	if err := db.Select(context.Background(), &rows, `SELECT `+emailColumns+` FROM emails WHERE raw_sha256 = ? ORDER BY inbox_id`, hex.EncodeToString(sum[:])); err != nil {
		t.Fatal(err)
	}
	return rows
}

// mailRawOf reads the stored raw message of an e-mail.
func mailRawOf(t *testing.T, db *store.DB, id string) []byte {
	t.Helper()
	var raw []byte
	if err := db.Get(context.Background(), &raw, `SELECT raw FROM inbox_email_raw WHERE email_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	return raw
}

// mailEvents lists the slugs of the system events about an e-mail, sorted.
func mailEvents(t *testing.T, db *store.DB, emailID string) []string {
	t.Helper()
	var slugs []string
	if err := db.Select(context.Background(), &slugs, `SELECT slug FROM system_events WHERE subject_id = ?`, emailID); err != nil {
		t.Fatal(err)
	}
	slices.Sort(slugs)
	return slugs
}

// mailEventPayload reads one event's payload about an e-mail.
func mailEventPayload(t *testing.T, db *store.DB, emailID, slug string) map[string]any {
	t.Helper()
	var p string
	if err := db.Get(context.Background(), &p, `SELECT payload FROM system_events WHERE subject_id = ? AND slug = ?`, emailID, slug); err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(p), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// mailProcessedAtIntake fails unless the e-mail is processed with one
// successful agent run and no processing job: its intake processed it.
func mailProcessedAtIntake(t *testing.T, db *store.DB, emailID string) {
	t.Helper()
	var e emailRecord
	if err := db.Get(context.Background(), &e, `SELECT `+emailColumns+` FROM emails WHERE id = ?`, emailID); err != nil {
		t.Fatal(err)
	}
	if e.Status != emailProcessed || e.ProcessedAt == nil {
		t.Fatalf("the e-mail is %s, not processed", e.Status)
	}
	var runs []string
	if err := db.Select(context.Background(), &runs, `SELECT status FROM agent_runs WHERE email_id = ?`, emailID); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0] != "success" {
		t.Fatalf("agent runs of an e-mail processed at intake: %v", runs)
	}
	if n := mailJobs(t, db, emailID, false); n != 0 {
		t.Fatalf("an e-mail processed at intake has %d processing jobs", n)
	}
}

// mailJobs counts the processing jobs enqueued for an e-mail with the
// given reprocess flag (River's job table, whatever state the job is in).
func mailJobs(t *testing.T, db *store.DB, emailID string, reprocess bool) int {
	t.Helper()
	var args []string
	col := "args::text" // jsonb on PostgreSQL; SQLite keeps binary JSONB
	if db.Dialect() == store.SQLite {
		col = "json(args)"
	}
	if err := db.Select(context.Background(), &args, `SELECT `+col+` FROM river_job WHERE kind = ?`, processArgs{}.Kind()); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range args {
		var p processArgs
		if json.Unmarshal([]byte(a), &p) == nil && p.EmailID == emailID && p.Reprocess == reprocess {
			n++
		}
	}
	return n
}

// mailUsage is the workspace's count of accepted e-mails this month.
func mailUsage(t *testing.T, s *mailServer, orgID, workspaceID string) int {
	t.Helper()
	ws, err := readWorkspaceSettings(context.Background(), s.db, orgID, workspaceID)
	if err != nil {
		t.Fatal(err)
	}
	return ws.MonthlyEmailsUsed
}

// TestIntakeReceiveScreening drives receive directly through every
// screening outcome: the row, its reason, its events, its job and the
// usage count.
func TestIntakeReceiveScreening(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e, s := contasIntake(t, db)
		ctx := context.Background()
		mailInbox(t, e, e.Owner, "parado@inbox.localhost", map[string]any{"status": "inactive"})
		mailInbox(t, e, e.Owner, "restrito@inbox.localhost", map[string]any{"allowed_recipients": []string{"@Fornecedor.example", "ana@cliente.example"}})
		mailInbox(t, e, e.Owner, "sem-anexo@inbox.localhost", map[string]any{"attachments_allow": false})
		mailInbox(t, e, e.Owner, "pequeno@inbox.localhost", map[string]any{"attachments_max_file_size": 100})
		mailInbox(t, e, e.Owner, "filtrado@inbox.localhost", map[string]any{"filters": []map[string]any{
			{"field": "from", "operator": "ends_with", "value": "@cliente.example", "action": "allow"},
			{"field": "subject", "operator": "contains", "value": "FEVEREIRO", "action": "reject"},
		}})
		pdf := mailFixture(t, "mixed_pdf.eml")

		receiveOne := func(raw []byte, rcpt string) emailRecord {
			t.Helper()
			got, err := s.receive(ctx, raw, "bounce@fornecedor.example", []string{rcpt}, intakeHTTP)
			if err != nil || len(got) != 1 {
				t.Fatalf("receive for %s: %v %+v", rcpt, err, got)
			}
			return mailRow(t, db, got[0].ID)
		}
		wantRejected := func(r emailRecord, code string) {
			t.Helper()
			if r.Status != emailRejected || r.RejectionReason == nil || !strings.HasPrefix(*r.RejectionReason, code+": ") {
				t.Fatalf("want %s, got %s %v", code, r.Status, deref(r.RejectionReason))
			}
			if ev := mailEvents(t, db, r.ID); !slices.Equal(ev, []string{"email.received", "email.rejected"}) {
				t.Fatalf("events %v", ev)
			}
			if n := mailJobs(t, db, r.ID, false); n != 0 {
				t.Fatalf("a rejected e-mail has %d processing jobs", n)
			}
		}

		before := mailUsage(t, s, e.Mine.ID, e.MineWS.ID)
		ok := receiveOne(pdf, "Contas@Inbox.Localhost")
		if ok.Status == emailRejected || ok.RejectionReason != nil || ok.Intake != intakeHTTP {
			t.Fatalf("approved: %+v", ok)
		}
		// Received, never rejected, and processed at its intake (the
		// harness's process works the queue): no job.
		if ev := mailEvents(t, db, ok.ID); !slices.Equal(ev, []string{"agent_run.succeeded", "email.processed", "email.received"}) {
			t.Fatalf("events %v", ev)
		}
		if ok.Status != emailProcessed {
			t.Fatalf("the intake answered %s, not processed", ok.Status)
		}
		mailProcessedAtIntake(t, db, ok.ID)
		payload := mailEventPayload(t, db, ok.ID, "email.received")
		data, _ := payload["data"].(map[string]any)
		em, _ := data["email"].(map[string]any)
		ib, _ := data["inbox"].(map[string]any)
		if em["id"] != ok.ID || em["subject"] != "Boleto fevereiro/2026" || ib["email"] != "contas@inbox.localhost" {
			t.Fatalf("event payload %v", payload)
		}

		wantRejected(receiveOne(pdf, "parado@inbox.localhost"), rejectInboxInactive)
		wantRejected(receiveOne(mailFixture(t, "latin1.eml"), "restrito@inbox.localhost"), rejectSenderNotAllowed)
		if r := receiveOne(pdf, "restrito@inbox.localhost"); r.Status == emailRejected {
			t.Fatalf("an @domain entry does not let its sender through: %v", deref(r.RejectionReason))
		}
		if r := receiveOne(mailFixture(t, "forwarded_inline.eml"), "restrito@inbox.localhost"); r.Status == emailRejected {
			t.Fatalf("a full address entry does not let its sender through: %v", deref(r.RejectionReason))
		}
		wantRejected(receiveOne(pdf, "sem-anexo@inbox.localhost"), rejectAttachments)
		if r := receiveOne(mailFixture(t, "nested_related.eml"), "pequeno@inbox.localhost"); r.Status == emailRejected {
			t.Fatalf("a 14-byte file under a 100-byte limit is rejected: %v", deref(r.RejectionReason))
		}
		big := receiveOne(pdf, "pequeno@inbox.localhost")
		wantRejected(big, rejectAttachmentLimit)
		if !strings.Contains(*big.RejectionReason, `"boleto-fevereiro.pdf" has 812 bytes`) {
			t.Fatalf("reason %s", *big.RejectionReason)
		}
		filtered := receiveOne(pdf, "filtrado@inbox.localhost")
		wantRejected(filtered, rejectFilter)
		if !strings.Contains(*filtered.RejectionReason, "rule 2") {
			t.Fatalf("reason %s", *filtered.RejectionReason)
		}
		if r := receiveOne(mailFixture(t, "forwarded_rfc822.eml"), "filtrado@inbox.localhost"); r.Status == emailRejected {
			t.Fatalf("rule 1 allows the sender before rule 2 rejects: %v", deref(r.RejectionReason))
		}

		garbage := []byte("this is not a message\r\nat all\r\n")
		bad := receiveOne(garbage, "contas@inbox.localhost")
		wantRejected(bad, rejectUnparseable)
		if bad.Subject != nil || bad.FromAddress != "bounce@fornecedor.example" || string(mailRawOf(t, db, bad.ID)) != string(garbage) {
			t.Fatalf("unparseable row %+v", bad)
		}

		approved := 0
		var rows []emailRecord
		_ = db.Select(ctx, &rows, `SELECT `+emailColumns+` FROM emails WHERE workspace_id = ?`, e.MineWS.ID)
		for _, r := range rows {
			if r.Status != emailRejected {
				approved++
			}
		}
		if got := mailUsage(t, s, e.Mine.ID, e.MineWS.ID); got != before+approved {
			t.Fatalf("usage %d, want %d (approved only)", got, before+approved)
		}

		// The month's limits: e-mails, then cost. contas has pdf already, so
		// each check sends other bytes (with the same Message-ID: another
		// e-mail, not a relay's retry).
		resent := func(n string) []byte { return append([]byte("X-Resent: "+n+"\r\n"), pdf...) }
		if _, err := db.Exec(ctx, `UPDATE inbox_workspace_settings SET monthly_emails_limit = ? WHERE workspace_id = ?`, mailUsage(t, s, e.Mine.ID, e.MineWS.ID), e.MineWS.ID); err != nil {
			t.Fatal(err)
		}
		wantRejected(receiveOne(resent("1"), "contas@inbox.localhost"), rejectMonthlyEmails)
		if _, err := db.Exec(ctx, `UPDATE inbox_workspace_settings SET monthly_emails_limit = NULL, monthly_cost_limit = 0 WHERE workspace_id = ?`, e.MineWS.ID); err != nil {
			t.Fatal(err)
		}
		wantRejected(receiveOne(resent("2"), "contas@inbox.localhost"), rejectMonthlyCost)

		if _, err := s.receive(ctx, pdf, "", []string{"nobody@inbox.localhost", "not an address"}, intakeSMTP); !errors.Is(err, errNoRecipient) {
			t.Fatalf("no live recipient: %v", err)
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestIntakeReceiveRecipients: one e-mail per recipient inbox, each
// showing only its own organization's addresses, the raw bytes shared.
func TestIntakeReceiveRecipients(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		s := mailService(t, e, Config{SMTPAddr: "off"})
		a := mailInbox(t, e, e.Owner, "a@inbox.localhost", nil)
		b := mailInbox(t, e, e.Owner, "b@inbox.localhost", nil)
		c := mailInbox(t, e, e.Other, "c@inbox.localhost", nil)
		raw := mailFixture(t, "nested_related.eml")
		got, err := s.receive(context.Background(), raw, "<vendas@loja.example>", []string{"a@inbox.localhost", "<B@inbox.localhost>", "c@inbox.localhost", "a@inbox.localhost", "ghost@inbox.localhost"}, intakeSMTP)
		if err != nil || len(got) != 3 {
			t.Fatalf("%v %+v", err, got)
		}
		byInbox := map[string]emailRecord{}
		for _, r := range got {
			byInbox[r.InboxID] = mailRow(t, db, r.ID)
		}
		mine := []string{"a@inbox.localhost", "b@inbox.localhost"}
		for _, id := range []string{a, b} {
			r := byInbox[id]
			if r.OrganizationID != e.Mine.ID || !slices.Equal(decodeList[string](r.ToJSON), mine) {
				t.Fatalf("mine %+v", r)
			}
		}
		theirs := byInbox[c]
		if theirs.OrganizationID != e.Theirs.ID || theirs.WorkspaceID != e.TheirWS.ID || !slices.Equal(decodeList[string](theirs.ToJSON), []string{"c@inbox.localhost"}) {
			t.Fatalf("theirs %+v", theirs)
		}
		for _, r := range byInbox {
			if string(mailRawOf(t, db, r.ID)) != string(raw) || r.RawSize != int64(len(raw)) {
				t.Fatal("raw differs")
			}
			if !slices.Equal(decodeList[string](r.HeaderToJSON), []string{"contas@inbox.localhost", "outro@cliente.example"}) ||
				!slices.Equal(decodeList[string](r.BccJSON), []string{"arquivo@cliente.example"}) || r.FromAddress != "vendas@loja.example" {
				t.Fatalf("headers %+v", r)
			}
			atts := decodeList[emailAttachment](r.AttachmentsJSON)
			if len(atts) != 2 || atts[1] != (emailAttachment{Filename: "itens do pedido.csv", ContentType: "text/csv", Size: 13}) {
				t.Fatalf("attachments %+v", atts)
			}
		}
	})
}
