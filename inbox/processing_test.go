package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// A bank boleto's linha digitável with valid check digits (Itaú, R$ 1.234,56, due 2026-03-10).
const testBoletoLine = "34191.09123 34567.880124 34567.890008 5 13810000123456"

// boletoMail is an e-mail whose text carries testBoletoLine.
func boletoMail(to, from, subject string) string {
	return "From: " + from + "\r\nTo: " + to + "\r\nSubject: " + subject + "\r\nMessage-ID: <" + fmt.Sprint(time.Now().UnixNano()) + "@supplier.example>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSegue o boleto da fatura 123.\r\nLinha digitável: " + testBoletoLine + "\r\nCNPJ 11.222.333/0001-81\r\n"
}

// createTestInbox creates an inbox through the API and returns its id and
// address.
func createTestInbox(t *testing.T, e *testEnv, body map[string]any) (id, address string) {
	t.Helper()
	code, out := e.Do(e.Owner, "POST", "/api/v1/inboxes", body)
	if code != 201 {
		t.Fatalf("create inbox: %d %s", code, out)
	}
	var doc struct{ Data struct{ ID, Email string } }
	_ = json.Unmarshal([]byte(out), &doc)
	return doc.Data.ID, doc.Data.Email
}

// postMail hands a raw message to the HTTP intake.
func postMail(t *testing.T, e *testEnv, raw string) string {
	t.Helper()
	code, out := e.DoToken(e.Token(e.Owner, "api"), "POST", "/api/v1/intake/messages", raw, "Content-Type", "message/rfc822")
	if code != 202 {
		t.Fatalf("intake: %d %s", code, out)
	}
	var doc struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Data) != 1 {
		t.Fatalf("intake answer: %s", out)
	}
	return doc.Data[0].ID
}

// waitEmail polls the API until the e-mail reaches one of the statuses.
func waitEmail(t *testing.T, e *testEnv, id string, statuses ...string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, out := e.Do(e.Owner, "GET", "/api/v1/emails/"+id, nil)
		var doc struct{ Data map[string]any }
		_ = json.Unmarshal([]byte(out), &doc)
		if code == 200 {
			for _, s := range statuses {
				if doc.Data["status"] == s {
					return doc.Data
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("e-mail %s never reached %v: %d %s", id, statuses, code, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestProcessingDecodesBoleto sends an e-mail with a boleto through the
// intake; the job queue runs the built-in extractor, and the e-mail ends
// processed with the boleto decoded, an agent run recorded, and the
// email.processed event stored.
func TestProcessingDecodesBoleto(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newTestEnv(t, db, Config{SMTPAddr: "off"})
		_, addr := createTestInbox(t, e, map[string]any{"label": "Suppliers"})
		id := postMail(t, e, boletoMail(addr, "billing@supplier.example", "Fatura 123"))
		email := waitEmail(t, e, id, "processed", "failed")
		if email["status"] != "processed" {
			t.Fatalf("not processed: %v", email)
		}
		b, _ := json.Marshal(email["agent_metadata"])
		for _, want := range []string{`"digitable_line":"34191091233456788012434567890008513810000123456"`, `"amount":"1234.56"`, `"due_date":"2026-03-10"`, `"provider":"extractor"`, `"11222333000181"`} {
			if !strings.Contains(strings.ReplaceAll(string(b), " ", ""), want) {
				t.Errorf("agent_metadata lacks %s: %s", want, b)
			}
		}
		code, runs := e.Do(e.Owner, "GET", "/api/v1/agent-runs?email_id="+id, nil)
		if code != 200 || !strings.Contains(runs, `"status":"success"`) || !strings.Contains(runs, `"provider":"extractor"`) {
			t.Fatalf("agent runs: %d %s", code, runs)
		}
		code, events := e.Do(e.Owner, "GET", "/api/v1/system-events?email_id="+id, nil)
		if code != 200 || !strings.Contains(events, `"slug":"email.processed"`) || !strings.Contains(events, `"slug":"email.received"`) ||
			!strings.Contains(events, `"organization":{"id":"`+e.Mine.ID+`","name":"Mine"}`) || !strings.Contains(events, `"workspace":{"external_id":"`+e.MineWS.ExternalID) {
			t.Fatalf("events: %d %s", code, events)
		}
		// The other organization sees none of it.
		if code, _ := e.Do(e.Other, "GET", "/api/v1/emails/"+id, nil); code != 404 {
			t.Fatalf("their view of my e-mail: %d", code)
		}
	})
}

// TestProcessingWithOpenAICompatibleProvider runs the agent against a
// local server speaking the chat-completions API: the run records the
// model's tokens and cost, and the e-mail's result holds the model's JSON
// beside the offline extraction. A provider refusal (400) fails the e-mail
// with agent_run.failed and email.failed.
func TestProcessingWithOpenAICompatibleProvider(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		refuse := make(chan bool, 10)
		llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" || !strings.Contains(string(body), `"model":"gpt-test"`) {
				w.WriteHeader(400)
				_, _ = w.Write([]byte(`{"error":{"message":"unexpected request"}}`))
				return
			}
			select {
			case <-refuse:
				w.WriteHeader(400)
				_, _ = w.Write([]byte(`{"error":{"message":"content policy"}}`))
				return
			default:
			}
			_, _ = w.Write([]byte(`{"id":"c1","object":"chat.completion","model":"gpt-test","choices":[{"index":0,"message":{"role":"assistant","content":"{\"kind\":\"boleto\",\"supplier\":\"ACME\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1200,"completion_tokens":30,"total_tokens":1230}}`))
		}))
		defer llm.Close()
		e := newTestEnv(t, db, Config{SMTPAddr: "off", Provider: "openai", OpenAIURL: llm.URL + "/v1", OpenAIModel: "gpt-test", OpenAIKey: "sk-test"})
		code, out := e.Do(e.Owner, "POST", "/api/v1/agents", map[string]any{"label": "Invoices", "llm_model": "gpt-test", "system_message": "Extract the supplier."})
		if code != 201 {
			t.Fatalf("agent: %d %s", code, out)
		}
		var agentDoc struct{ Data struct{ ID string } }
		_ = json.Unmarshal([]byte(out), &agentDoc)
		_, addr := createTestInbox(t, e, map[string]any{"label": "AI", "agent_id": agentDoc.Data.ID})

		id := postMail(t, e, boletoMail(addr, "billing@supplier.example", "Fatura"))
		email := waitEmail(t, e, id, "processed", "failed")
		b, _ := json.Marshal(email["agent_metadata"])
		if email["status"] != "processed" || !strings.Contains(string(b), `"supplier":"ACME"`) || !strings.Contains(string(b), "34191091233456788012434567890008513810000123456") {
			t.Fatalf("processed e-mail: %v / %s", email["status"], b)
		}
		_, runs := e.Do(e.Owner, "GET", "/api/v1/agent-runs?email_id="+id, nil)
		if !strings.Contains(runs, `"input_tokens":1200`) || !strings.Contains(runs, `"output_tokens":30`) || !strings.Contains(runs, `"llm_model":"gpt-test"`) {
			t.Fatalf("run usage: %s", runs)
		}

		refuse <- true
		id = postMail(t, e, boletoMail(addr, "billing@supplier.example", "Fatura 2"))
		email = waitEmail(t, e, id, "processed", "failed")
		if email["status"] != "failed" {
			t.Fatalf("a refused run: %v", email)
		}
		_, events := e.Do(e.Owner, "GET", "/api/v1/system-events?email_id="+id, nil)
		if !strings.Contains(events, `"slug":"agent_run.failed"`) || !strings.Contains(events, `"slug":"email.failed"`) {
			t.Fatalf("failure events: %s", events)
		}
	})
}

// TestProcessingRunsRecordOnce: runs of the same approved e-mail at once
// (River runs a job at least once) record one outcome — one agent run,
// one email.processed — and a run after the outcome records nothing, on
// both engines.
func TestProcessingRunsRecordOnce(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		sd := seedEmails(t, db)
		ctx := context.Background()
		id := sd.byFixture["latin1.eml"]
		org := sd.e.Mine.ID
		count := func(query string) int {
			t.Helper()
			var n int
			if err := db.Get(ctx, &n, query, org, id); err != nil {
				t.Fatal(err)
			}
			return n
		}
		const runs = `SELECT COUNT(*) FROM agent_runs WHERE organization_id = ? AND email_id = ?`
		const processed = `SELECT COUNT(*) FROM system_events WHERE organization_id = ? AND subject_id = ? AND slug = 'email.processed'`
		runs0, events0 := count(runs), count(processed)
		// As if the job were delivered again before its outcome: approved.
		if err := setEmailStatus(ctx, db, org, id, emailApproved, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if err := sd.s.process(ctx, org, id, true); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n := count(runs) - runs0; n != 1 {
			t.Fatalf("%d agent runs for 4 runs at once, want 1", n)
		}
		if n := count(processed) - events0; n != 1 {
			t.Fatalf("%d email.processed for 4 runs at once, want 1", n)
		}
		if err := sd.s.process(ctx, org, id, true); err != nil {
			t.Fatal(err)
		}
		if count(runs)-runs0 != 1 || count(processed)-events0 != 1 {
			t.Fatal("a run after the outcome recorded another")
		}
	})
}

// TestProcessingAfterItsInboxIsGone: an e-mail whose inbox was deleted
// after it arrived is still processed (read the long way, without its
// inbox): processed, one run, and email.processed carrying the e-mail and
// the tenant but no inbox.
func TestProcessingAfterItsInboxIsGone(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		sd := seedEmails(t, db)
		ctx := context.Background()
		id := sd.byFixture["latin1.eml"]
		org := sd.e.Mine.ID
		e, err := getEmail(ctx, db, org, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := setEmailStatus(ctx, db, org, id, emailApproved, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `UPDATE inboxes SET deleted_at = ? WHERE id = ?`, store.Now(), e.InboxID); err != nil {
			t.Fatal(err)
		}
		if err := sd.s.process(ctx, org, id, true); err != nil {
			t.Fatal(err)
		}
		if e, err = getEmail(ctx, db, org, id); err != nil || e.Status != emailProcessed {
			t.Fatalf("%+v %v", e.Status, err)
		}
		var payloads []string
		if err := db.Select(ctx, &payloads, `SELECT payload FROM system_events WHERE organization_id = ? AND subject_id = ? AND slug = 'email.processed' ORDER BY id`, org, id); err != nil || len(payloads) == 0 {
			t.Fatalf("%v %d", err, len(payloads))
		}
		var env struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(payloads[len(payloads)-1]), &env); err != nil {
			t.Fatal(err)
		}
		if env.Data["inbox"] != nil || env.Data["email"] == nil || env.Data["agent_run"] == nil ||
			!strings.Contains(string(env.Data["organization"]), `"name":"Mine"`) || env.Data["workspace"] == nil {
			t.Fatalf("email.processed data: %s", payloads[len(payloads)-1])
		}
	})
}
