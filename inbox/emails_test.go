package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// emailsSeed is the e-mails the API tests read: five approved in Mine's
// "contas" inbox, one rejected in its "fechada" inbox, one in Theirs.
type emailsSeed struct {
	e                      *testEnv
	s                      *service
	contas, fechada, deles string // inbox ids
	byFixture              map[string]string
	rejected, theirsEmail  string
	all                    []string // Mine's e-mail ids, newest first
}

func seedEmails(t *testing.T, db *store.DB) *emailsSeed {
	t.Helper()
	e := newTestEnv(t, db, Config{SMTPAddr: "off"})
	sd := &emailsSeed{e: e, s: mailService(t, e, Config{SMTPAddr: "off"}).service, byFixture: map[string]string{}}
	sd.contas = mailInbox(t, e, e.Owner, "contas@inbox.localhost", map[string]any{"external_id": "contas-ext"})
	sd.fechada = mailInbox(t, e, e.Owner, "fechada@inbox.localhost", map[string]any{"allowed_recipients": []string{"ninguem@x.example"}})
	sd.deles = mailInbox(t, e, e.Other, "deles@inbox.localhost", nil)
	ctx := context.Background()
	deliver := func(name, rcpt string) string {
		got, err := sd.s.receive(ctx, mailFixture(t, name), "", []string{rcpt}, intakeSMTP)
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		return got[0].ID
	}
	for _, name := range []string{"mixed_pdf.eml", "latin1.eml", "forwarded_inline.eml", "html_only.eml", "nested_related.eml"} {
		sd.byFixture[name] = deliver(name, "contas@inbox.localhost")
		sd.all = append([]string{sd.byFixture[name]}, sd.all...)
	}
	sd.rejected = deliver("latin1.eml", "fechada@inbox.localhost")
	sd.all = append([]string{sd.rejected}, sd.all...)
	sd.theirsEmail = deliver("mixed_pdf.eml", "deles@inbox.localhost")
	waitProcessed(t, db)
	return sd
}

// waitProcessed waits until the processing jobs the intake enqueued have
// finished, so a test that then changes an e-mail does not race the
// worker.
func waitProcessed(t *testing.T, db *store.DB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := db.Get(context.Background(), &n, `SELECT COUNT(*) FROM emails WHERE status IN (?, ?)`, emailApproved, emailProcessing); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d e-mails still waiting for processing", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// emailsPage is one page of emails_list.
type emailsPage struct {
	Data []map[string]any
	Meta struct {
		NextCursor *string `json:"next_cursor"`
	}
}

func listIDs(t *testing.T, e *testEnv, query string) ([]string, emailsPage) {
	t.Helper()
	code, body := e.Do(e.Owner, "GET", "/api/v1/emails"+query, nil)
	if code != 200 {
		t.Fatalf("%s: %d %s", query, code, body)
	}
	var p emailsPage
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, d := range p.Data {
		ids = append(ids, d["id"].(string))
	}
	return ids, p
}

// TestEmailsList: newest first, every filter, strict arguments,
// pagination to the end, and nothing of another organization.
func TestEmailsList(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		sd := seedEmails(t, db)
		e := sd.e
		ids, page := listIDs(t, e, "")
		if !slices.Equal(ids, sd.all) || page.Meta.NextCursor != nil {
			t.Fatalf("list %v, want %v", ids, sd.all)
		}
		if _, has := page.Data[0]["body"]; has || page.Data[0]["eml_download_path"] != "/api/v1/emails/"+sd.all[0]+"/eml" {
			t.Fatalf("list item %v", page.Data[0])
		}
		var walked []string
		cursor := ""
		for pages := 0; ; pages++ {
			q := "?limit=2"
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			ids, p := listIDs(t, e, q)
			walked = append(walked, ids...)
			if p.Meta.NextCursor == nil {
				break
			}
			if pages > 5 {
				t.Fatal("pagination does not end")
			}
			cursor = *p.Meta.NextCursor
		}
		if !slices.Equal(walked, sd.all) {
			t.Fatalf("paged %v, want %v", walked, sd.all)
		}

		today := time.Now().UTC().Format(time.DateOnly)
		yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
		filters := map[string][]string{
			"?status=rejected":                     {sd.rejected},
			"?status=received":                     {},
			"?inbox_id=" + sd.fechada:              {sd.rejected},
			"?inbox_id=contas-ext&from=FORNECEDOR": {sd.byFixture["mixed_pdf.eml"]},
			"?from=%25":                            {},
			"?from=escritorio&status=rejected":     {sd.rejected},
			"?received_from=" + today:              sd.all,
			"?received_to=" + today:                sd.all,
			"?received_to=" + yesterday:            {},
			"?received_from=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)):                                  {},
			"?received_to=" + url.QueryEscape(time.Now().Add(time.Hour).In(time.FixedZone("BRT", -3*3600)).Format(time.RFC3339)): sd.all,
		}
		for q, want := range filters {
			if ids, _ := listIDs(t, e, q); !slices.Equal(ids, want) {
				t.Fatalf("%s: %v, want %v", q, ids, want)
			}
		}
		contasIDs, _ := listIDs(t, e, "?inbox_id="+sd.contas)
		if len(contasIDs) != 5 {
			t.Fatalf("contas: %v", contasIDs)
		}

		bad := map[string]string{
			"?status=lost":             `"field":"status"`,
			"?received_from=yesterday": `"field":"received_from"`,
			"?received_to=2026-13-01":  `"field":"received_to"`,
			// Dates within 1990–2100 (platform/datebounds).
			"?received_from=0000-01-01":         `"field":"received_from","message":"must be between 1990-01-01 and 2100-12-31"`,
			"?received_to=9999-12-31T00:00:00Z": `"field":"received_to","message":"must be between 1990-01-01 and 2100-12-31"`,
			"?limit=0":                          `"field":"limit"`,
			"?cursor=nope":                      `"field":"cursor"`,
			"?subject=boleto":                   `"field":"subject","message":"unknown query parameter"`,
			"?inbox_id=" + sd.deles:             `"code":"not_found"`,
			"?inbox_id=no-such-inbox":           `"code":"not_found"`,
		}
		for q, want := range bad {
			code, body := e.Do(e.Owner, "GET", "/api/v1/emails"+q, nil)
			if (code != 422 && code != 404) || !strings.Contains(body, want) {
				t.Fatalf("%s: %d %s", q, code, body)
			}
		}
		// Theirs see only theirs.
		code, body := e.Do(e.Other, "GET", "/api/v1/emails", nil)
		if code != 200 || !strings.Contains(body, sd.theirsEmail) || strings.Contains(body, sd.rejected) {
			t.Fatalf("theirs: %d %s", code, body)
		}

		// The tool mirrors the route.
		text, isErr := e.Call(e.Owner, "emails_list", map[string]any{"status": "rejected", "inbox_id": "" + sd.fechada})
		if isErr || !strings.Contains(text, sd.rejected) || strings.Contains(text, sd.byFixture["latin1.eml"]) {
			t.Fatalf("emails_list: %s", text)
		}
		text, isErr = e.Call(e.Owner, "emails_list", map[string]any{"subject": "x"})
		if !isErr || !strings.Contains(text, "subject") {
			t.Fatalf("emails_list with an unknown argument: %v %s", isErr, text)
		}
	})
}

// TestEmailsGet: the whole e-mail JSON, 404 across organizations and for
// nothing, and the tool.
func TestEmailsGet(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		sd := seedEmails(t, db)
		e := sd.e
		id := sd.byFixture["mixed_pdf.eml"]
		code, body := e.Do(e.Owner, "GET", "/api/v1/emails/"+id, nil)
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		var doc struct{ Data map[string]any }
		_ = json.Unmarshal([]byte(body), &doc)
		d := doc.Data
		want := map[string]any{
			"id": id, "workspace_id": e.MineWS.ID, "inbox_id": sd.contas, "agent_id": nil, "message_id": "boleto-0001@fornecedor.example",
			"subject": "Boleto fevereiro/2026", "from": "cobranca@fornecedor.example", "forwarded": false, "forwarded_for": nil,
			"rejection_reason": nil, "spam_verdict": nil, "virus_verdict": nil, "sent_at": "2026-03-02T12:15:00Z",
			"eml_download_path": "/api/v1/emails/" + id + "/eml",
		}
		for k, v := range want {
			if d[k] != v {
				t.Fatalf("%s = %v, want %v (%s)", k, d[k], v, body)
			}
		}
		listOf := func(k string) string { b, _ := json.Marshal(d[k]); return string(b) }
		if listOf("to") != `["contas@inbox.localhost"]` || listOf("cc") != `["gerente@cliente.example"]` || listOf("bcc") != `[]` ||
			listOf("header_to") != `["contas@inbox.localhost"]` ||
			listOf("attachments") != `[{"content_type":"application/pdf","filename":"boleto-fevereiro.pdf","size":812}]` ||
			!strings.HasPrefix(listOf("agent_metadata"), `{`) || listOf("custom_metadata") != `{}` {
			t.Fatalf("lists: %s", body)
		}
		bodyPart, _ := d["body"].(map[string]any)
		if !strings.Contains(bodyPart["text"].(string), "vencimento 10/03/2026") || bodyPart["html"] != nil {
			t.Fatalf("body %v", bodyPart)
		}
		if _, err := time.Parse(time.RFC3339, d["received_at"].(string)); err != nil || !slices.Contains([]any{emailApproved, emailProcessing, emailProcessed, emailFailed}, d["status"]) {
			t.Fatalf("received_at %v status %v", d["received_at"], d["status"])
		}

		fwd := sd.byFixture["forwarded_inline.eml"]
		if _, body := e.Do(e.Owner, "GET", "/api/v1/emails/"+fwd, nil); !strings.Contains(body, `"forwarded":true,"forwarded_for":"boletos@imobiliaria.example"`) {
			t.Fatalf("forwarded: %s", body)
		}
		if _, body := e.Do(e.Owner, "GET", "/api/v1/emails/"+sd.rejected, nil); !strings.Contains(body, `"status":"rejected","subject":"Cobrança de março - prestação"`) ||
			!strings.Contains(body, `"rejection_reason":"sender_not_allowed: the sender joao@escritorio.example is not among the inbox's allowed senders"`) {
			t.Fatalf("rejected: %s", body)
		}
		for _, other := range []string{sd.theirsEmail, "no-such-email", store.NewID()} {
			if code, body := e.Do(e.Owner, "GET", "/api/v1/emails/"+other, nil); code != 404 || !strings.Contains(body, `"code":"not_found"`) {
				t.Fatalf("%s: %d %s", other, code, body)
			}
		}
		if code, _ := e.Do(e.Other, "GET", "/api/v1/emails/"+sd.theirsEmail, nil); code != 200 {
			t.Fatalf("theirs reading theirs: %d", code)
		}

		text, isErr := e.Call(e.Owner, "emails_get", map[string]any{"id": sd.byFixture["html_only.eml"]})
		if isErr || !strings.Contains(text, "<p>Prezado cliente,</p>") || !strings.Contains(text, `"text":null`) {
			t.Fatalf("emails_get: %s", text)
		}
		text, isErr = e.Call(e.Owner, "emails_get", map[string]any{"id": sd.theirsEmail})
		if !isErr || !strings.Contains(text, "not_found") {
			t.Fatalf("emails_get across organizations: %s", text)
		}
	})
}

// TestEmailsEML: the download is the stored bytes, as an attachment;
// another organization's is 404.
func TestEmailsEML(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		sd := seedEmails(t, db)
		e := sd.e
		get := func(id string) (*http.Response, []byte) {
			req, _ := http.NewRequest("GET", e.URL+"/api/v1/emails/"+id+"/eml", nil)
			req.Header.Set("Authorization", "Bearer "+e.Token(e.Owner, "api"))
			req.Header.Set("X-Workspace-Id", e.MineWS.ID)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp, b
		}
		for name, id := range sd.byFixture {
			resp, b := get(id)
			if resp.StatusCode != 200 || string(b) != string(mailFixture(t, name)) {
				t.Fatalf("%s: %d, %d bytes", name, resp.StatusCode, len(b))
			}
			if resp.Header.Get("Content-Type") != "message/rfc822" || resp.Header.Get("Content-Disposition") != `attachment; filename="`+id+`.eml"` {
				t.Fatalf("%s: headers %v", name, resp.Header)
			}
		}
		for _, other := range []string{sd.theirsEmail, "nope"} {
			resp, b := get(other)
			if resp.StatusCode != 404 || !strings.Contains(string(b), `"code":"not_found"`) {
				t.Fatalf("%s: %d %s", other, resp.StatusCode, b)
			}
		}
		req, _ := http.NewRequest("GET", e.URL+"/api/v1/emails/"+sd.rejected+"/eml", nil)
		req.Header.Set("Authorization", "Bearer "+e.Token(e.Owner, "api"))
		req.Header.Set("X-Workspace-Id", e.TheirWS.ID)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("another organization's workspace header: %d", resp.StatusCode)
		}
		if code, _ := e.DoToken(e.Token(e.Owner, "api", "inbox.inboxes"), "GET", "/api/v1/emails/"+sd.rejected+"/eml", nil); code != 403 {
			t.Fatalf("without inbox.emails: %d", code)
		}
	})
}

// TestEmailsReprocess: 202 with the e-mail now processing and a reprocess
// job in the same transaction; busy is 409; another organization's is
// 404; the tool asks for a confirmation it cannot get.
func TestEmailsReprocess(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		sd := seedEmails(t, db)
		e := sd.e
		ctx := context.Background()
		id := sd.rejected
		before := mailRow(t, db, id)
		code, body := e.Do(e.Owner, "POST", "/api/v1/emails/"+id+"/reprocess", nil)
		if code != 202 || !strings.Contains(body, `"status":"processing"`) || !strings.Contains(body, `"processed_at":null`) || !strings.Contains(body, `"id":"`+id+`"`) {
			t.Fatalf("%d %s", code, body)
		}
		if n := mailJobs(t, db, id, true); n != 1 {
			t.Fatalf("reprocess jobs: %d", n)
		}
		if after := mailRow(t, db, id); after.Status == before.Status || after.UpdatedAt.Before(before.UpdatedAt) {
			t.Fatalf("row after reprocess: %+v", after)
		}

		// While it is processing, a second reprocess is a conflict.
		busy := sd.byFixture["latin1.eml"]
		if err := setEmailStatus(ctx, db, e.Mine.ID, busy, emailProcessing, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		if code, body := e.Do(e.Owner, "POST", "/api/v1/emails/"+busy+"/reprocess", nil); code != 409 || !strings.Contains(body, `"code":"conflict"`) {
			t.Fatalf("busy: %d %s", code, body)
		}
		if n := mailJobs(t, db, busy, true); n != 0 {
			t.Fatal("a refused reprocess enqueued a job")
		}
		for _, other := range []string{sd.theirsEmail, "nope"} {
			if code, _ := e.Do(e.Owner, "POST", "/api/v1/emails/"+other+"/reprocess", nil); code != 404 {
				t.Fatalf("%s: %d", other, code)
			}
		}
		if code, _ := e.DoToken(e.Token(e.Owner, "api", "inbox.inboxes"), "POST", "/api/v1/emails/"+id+"/reprocess", nil); code != 403 {
			t.Fatalf("without inbox.emails: %d", code)
		}

		// MCP: destructive, so a client that cannot confirm gets
		// confirmation_required and nothing runs.
		target := sd.byFixture["html_only.eml"]
		text, isErr := e.Call(e.Owner, "emails_reprocess", map[string]any{"id": target})
		if !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("emails_reprocess: %v %s", isErr, text)
		}
		if n := mailJobs(t, db, target, true); n != 0 {
			t.Fatal("emails_reprocess ran without a confirmation")
		}
	})
}

// TestEmailsReprocessMessage: the confirmation names the e-mail.
func TestEmailsReprocessMessage(t *testing.T) {
	t.Parallel()
	subject := `Boleto "março"`
	r := emailRecord{ID: "0190-id", Subject: &subject, FromAddress: "cobranca@fornecedor.example", Status: emailFailed, ReceivedAt: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	msg := reprocessMessage(r)
	for _, want := range []string{`"Boleto \"março\""`, "cobranca@fornecedor.example", "0190-id", "2026-03-02T12:00:00Z", "status failed", "costs money"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("%q lacks %q", msg, want)
		}
	}
	r.Subject, r.FromAddress = nil, ""
	if msg := reprocessMessage(r); !strings.Contains(msg, "(no subject) from an unknown sender") {
		t.Fatal(msg)
	}
}

// TestEmailsStore covers what the processing job calls: org-scoped reads,
// status updates and the raw message.
func TestEmailsStore(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		sd := seedEmails(t, db)
		e, ctx := sd.e, context.Background()
		id := sd.byFixture["mixed_pdf.eml"]
		if r, err := getEmail(ctx, db, e.Mine.ID, id); err != nil || r.ID != id {
			t.Fatalf("getEmail: %v", err)
		}
		if _, err := getEmail(ctx, db, e.Theirs.ID, id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("getEmail across organizations: %v", err)
		}
		if raw, err := emailRaw(ctx, db, e.Mine.ID, id); err != nil || string(raw) != string(mailFixture(t, "mixed_pdf.eml")) {
			t.Fatalf("emailRaw: %v", err)
		}
		if _, err := emailRaw(ctx, db, e.Theirs.ID, id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("emailRaw across organizations: %v", err)
		}
		done := time.Date(2026, 3, 2, 13, 0, 0, 123456789, time.FixedZone("BRT", -3*3600))
		msg := "boom"
		if err := setEmailStatus(ctx, db, e.Mine.ID, id, emailFailed, &done, json.RawMessage(`{"boleto":{"valor":1234.56}}`), &msg); err != nil {
			t.Fatal(err)
		}
		r := mailRow(t, db, id)
		if r.Status != emailFailed || r.ProcessedAt == nil || !r.ProcessedAt.Equal(done.Truncate(time.Microsecond)) || r.AgentMetadataJSON != `{"boleto":{"valor":1234.56}}` || deref(r.LastError) != "boom" {
			t.Fatalf("%+v", r)
		}
		// nil metadata keeps it; nil error and time clear them.
		if err := setEmailStatus(ctx, db, e.Mine.ID, id, emailProcessed, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		r = mailRow(t, db, id)
		if r.Status != emailProcessed || r.ProcessedAt != nil || r.LastError != nil || r.AgentMetadataJSON != `{"boleto":{"valor":1234.56}}` {
			t.Fatalf("%+v", r)
		}
		if v := emailJSON(r); string(v.AgentMetadata) != `{"boleto":{"valor":1234.56}}` {
			t.Fatalf("emailJSON agent_metadata %s", v.AgentMetadata)
		}
		if err := setEmailStatus(ctx, db, e.Theirs.ID, id, emailProcessed, nil, nil, nil); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("across organizations: %v", err)
		}
		if err := setEmailStatus(ctx, db, e.Mine.ID, id, "done", nil, nil, nil); err == nil {
			t.Fatal("an unknown status was written")
		}
		if err := setEmailStatus(ctx, db, e.Mine.ID, id, emailProcessed, nil, json.RawMessage(`[1]`), nil); err == nil {
			t.Fatal("a non-object agent_metadata was written")
		}
	})
}
