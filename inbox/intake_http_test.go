package inbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// httpDeliver posts a raw message to the HTTP intake as user.
func httpDeliver(e *testEnv, user accounts.User, query string, raw []byte) (int, string) {
	return e.Do(user, "POST", "/api/v1"+intakeHTTPPath+query, raw, "Content-Type", "message/rfc822")
}

// httpDelivered reads the intake's answer.
func httpDelivered(t *testing.T, body string) []intakeResultJSON {
	t.Helper()
	var doc struct{ Data []intakeResultJSON }
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return doc.Data
}

// TestIntakeHTTP delivers fixtures through POST /api/v1/intake/messages:
// explicit and header recipients, the stored bytes, and every refusal.
func TestIntakeHTTP(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off", MaxMessageBytes: 32 << 10})
		contas := mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
		mailInbox(t, e, e.Owner, "parado@inbox.localhost", map[string]any{"status": "inactive"})
		mailInbox(t, e, e.Owner, "sem-anexo@inbox.localhost", map[string]any{"attachments_allow": false})
		mailInbox(t, e, e.Other, "deles@inbox.localhost", nil)

		// Recipients from the headers: To is an inbox, Cc is a person.
		pdf := mailFixture(t, "mixed_pdf.eml")
		code, body := httpDeliver(e, e.Owner, "", pdf)
		if code != 202 {
			t.Fatalf("%d %s", code, body)
		}
		got := httpDelivered(t, body)
		if len(got) != 1 || got[0].InboxID != contas || got[0].Status != emailProcessed || got[0].RejectionReason != nil {
			t.Fatalf("%s", body)
		}
		r := mailRow(t, db, got[0].ID)
		if string(mailRawOf(t, db, r.ID)) != string(pdf) || r.Intake != intakeHTTP || r.FromAddress != "cobranca@fornecedor.example" {
			t.Fatalf("%+v", r)
		}

		// Explicit recipients, an envelope sender, screening in the answer.
		code, body = httpDeliver(e, e.Owner, "?to=sem-anexo@inbox.localhost&to=Contas@Inbox.Localhost&from=relay@cliente.example", mailFixture(t, "forwarded_rfc822.eml"))
		got = httpDelivered(t, body)
		if code != 202 || len(got) != 2 {
			t.Fatalf("%d %s", code, body)
		}
		for _, g := range got {
			if (g.InboxID == contas) != (g.Status == emailProcessed) {
				t.Fatalf("%s", body)
			}
			if g.InboxID != contas && !strings.HasPrefix(deref(g.RejectionReason), "attachments_not_allowed: ") {
				t.Fatalf("%s", body)
			}
		}

		// An unparseable body is still delivered, and rejected.
		code, body = httpDeliver(e, e.Owner, "?to=contas@inbox.localhost", []byte("not a message\r\n"))
		if got = httpDelivered(t, body); code != 202 || len(got) != 1 || !strings.HasPrefix(deref(got[0].RejectionReason), "unparseable: ") {
			t.Fatalf("%d %s", code, body)
		}

		refusals := []struct {
			name, query string
			raw         []byte
			header      []string
			code        int
			want        string
		}{
			{"unknown explicit", "?to=contas@inbox.localhost&to=ghost@inbox.localhost", pdf, nil, 422, `"field":"to","message":"ghost@inbox.localhost: no active inbox`},
			{"another organization's inbox", "?to=deles@inbox.localhost", pdf, nil, 422, `deles@inbox.localhost: no active inbox of this organization`},
			{"inactive", "?to=parado@inbox.localhost", pdf, nil, 422, `parado@inbox.localhost: no active inbox`},
			{"empty body", "?to=contas@inbox.localhost", []byte{}, nil, 422, `"field":"body"`},
			{"headers name only others", "", []byte("From: a@b.example\r\nTo: deles@inbox.localhost, x@y.example\r\n\r\nhi\r\n"), nil, 422, `"field":"to"`},
			{"unknown parameter", "?to=contas@inbox.localhost&cc=x", pdf, nil, 422, `"field":"cc","message":"unknown query parameter"`},
			{"wrong media type", "?to=contas@inbox.localhost", pdf, []string{"Content-Type", "text/plain"}, 415, `"code":"unsupported_media_type"`},
			{"too large", "?to=contas@inbox.localhost", []byte("From: a@b.example\r\n\r\n" + strings.Repeat("x", 33<<10)), nil, 413, `"code":"payload_too_large"`},
		}
		for _, c := range refusals {
			header := append([]string{"Content-Type", "message/rfc822"}, c.header...)
			code, body := e.Do(e.Owner, "POST", "/api/v1"+intakeHTTPPath+c.query, c.raw, header...)
			if code != c.code || !strings.Contains(body, c.want) {
				t.Fatalf("%s: %d %s", c.name, code, body)
			}
		}

		// The operation needs inbox.emails, and stays out of MCP.
		code, body = e.DoToken(e.Token(e.Owner, "api", "inbox.inboxes"), "POST", "/api/v1"+intakeHTTPPath+"?to=contas@inbox.localhost", pdf, "Content-Type", "message/rfc822")
		if code != 403 {
			t.Fatalf("without inbox.emails: %d %s", code, body)
		}
		list := e.RPC(e.Owner, "tools/list", nil)
		if strings.Contains(list, "intake_messages_create") || strings.Contains(list, "emails_eml") || !strings.Contains(list, "emails_reprocess") {
			t.Fatal("the REST-only operations are listed as tools, or the e-mail tools are missing")
		}
		var n int
		_ = db.Get(t.Context(), &n, `SELECT COUNT(*) FROM emails`)
		if n != 4 {
			t.Fatalf("%d e-mails stored, want 4 (refusals store nothing)", n)
		}
	})
}
