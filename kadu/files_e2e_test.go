package kadu

import (
	"context"
	"encoding/json"
	"io"
	"mime/quotedprintable"
	"net"
	"net/http"
	netmail "net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/blob"
	"github.com/kobana/kobana-mcp/platform/blob/blobtest"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/mail"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

// A relay in the test process (go-smtp's server) keeping every message.
type kaduRelay struct {
	mu   sync.Mutex
	msgs []string
	to   []string
}

func (r *kaduRelay) NewSession(*smtp.Conn) (smtp.Session, error) { return &kaduRelaySession{r: r}, nil }

type kaduRelaySession struct {
	r  *kaduRelay
	to string
}

func (s *kaduRelaySession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *kaduRelaySession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = to
	return nil
}
func (s *kaduRelaySession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.r.mu.Lock()
	s.r.msgs, s.r.to = append(s.r.msgs, string(b)), append(s.r.to, s.to)
	s.r.mu.Unlock()
	return nil
}
func (s *kaduRelaySession) Reset()        {}
func (s *kaduRelaySession) Logout() error { return nil }

func (r *kaduRelay) messages() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...), append([]string(nil), r.to...)
}

func startKaduRelay(t *testing.T) (*kaduRelay, *mail.Config) {
	t.Helper()
	r := &kaduRelay{}
	s := smtp.NewServer(r)
	s.Domain = "relay.test"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return r, &mail.Config{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, TLS: mail.TLSNone,
		From: "Kadu <kadu@mine.example>", Timeout: 5 * time.Second, SendTimeout: 20 * time.Second}
}

// startFilesRuntime is startRuntime with a bucket, webhooks that reach
// loopback and an SMTP relay.
func startFilesRuntime(t *testing.T, db *store.DB, b *blob.Bucket, smtpCfg *mail.Config) *runtimeEnv {
	t.Helper()
	cat := newTestCatalog()
	reg := toolreg.New()
	alpha, _ := cat.Tools()
	if err := reg.Add("alpha", alpha); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Files: FilesConfig{bucket: b, URLSecret: "e2e files secret"}, Mail: DeliveryMail{SMTP: smtpCfg}}
	cfg.Runtime.RetryDelay = 10 * time.Millisecond
	hooks := productkit.WebhookSettings{AllowPrivateTargets: true, Retries: []time.Duration{10 * time.Millisecond}}
	e := &kaduEnv{Env: producttest.Start(t, db, specWith(cfg), producttest.Options{Tools: reg, Webhooks: hooks}), t: t, ctx: context.Background()}
	deps := productkitDeps(db, e.Jobs, reg)
	deps.Webhooks = hooks
	e.svc = newService(deps, cfg)
	for _, u := range []struct {
		dst  *accounts.User
		role identity.Role
		name string
	}{{&e.viewer, identity.RoleViewer, "viewer"}, {&e.member, identity.RoleMember, "member"},
		{&e.member2, identity.RoleMember, "member2"}, {&e.admin, identity.RoleAdmin, "admin"}} {
		var err error
		if *u.dst, err = e.Acc.CreateUser(e.ctx, accounts.NewUser{Email: u.name + "@mine.example", OrganizationID: e.Mine.ID, Role: u.role}); err != nil {
			t.Fatal(err)
		}
	}
	return &runtimeEnv{kaduEnv: e, cat: cat, reg: reg}
}

// call is an MCP tool call as the owner whose answer must not be an
// error; it answers the text's "data".
func (e *runtimeEnv) call(tool string, args map[string]any) json.RawMessage {
	e.t.Helper()
	text, isErr := e.Call(e.Owner, tool, args)
	if isErr {
		e.t.Fatalf("%s: %s", tool, text)
	}
	var out struct{ Data json.RawMessage }
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		e.t.Fatalf("%s: %v: %s", tool, err, text)
	}
	return out.Data
}

func httpGet(t *testing.T, u string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestFilesSeedPath is the seed's whole file path through the real MCP
// endpoint and a real HTTP client, on the local bucket and on S3:
// kadu_files_create → PUT → kadu_files_confirm → kadu_tasks_run with the
// id → the workflow reads the file's text → writes an output file →
// kadu_files_download → GET the bytes. The task's destinations get the
// result: a signed webhook (verified with the secret before and after a
// rotation, in its grace period) and an e-mail to a real SMTP server with
// a link that downloads the output. Another organization cannot run on
// the file.
func TestFilesSeedPath(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"file", "s3"} {
		t.Run(kind, func(t *testing.T) {
			storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
				var b *blob.Bucket
				if kind == "file" {
					b = blobtest.Dir(t)
				} else {
					b = blobtest.S3(t).Bucket
				}
				relay, smtpCfg := startKaduRelay(t)
				e := startFilesRuntime(t, db, b, smtpCfg)
				rcv := producttest.NewReceiver(t)
				hook, oldSecret, err := e.svc.hooks.Create(e.ctx, webhooks.NewWebhook{OrganizationID: e.Mine.ID, WorkspaceID: e.MineWS.ID, Label: "ERP",
					URL: rcv.URL, Auth: webhooks.AuthNone, SubscribedEvents: []string{"kadu.execution.*"}})
				if err != nil {
					t.Fatal(err)
				}
				newSecret, err := e.svc.hooks.RotateSecret(e.ctx, e.Mine.ID, e.MineWS.ID, hook.ID)
				if err != nil {
					t.Fatal(err)
				}

				// 1. The slot, the PUT, the confirmation.
				var slot uploadSlotJSON
				if err := json.Unmarshal(e.call("kadu_files_create", map[string]any{"filename": "recebiveis-marco.csv", "content_type": "text/csv",
					"byte_size": len(receivablesCSV), "sha256": sha(receivablesCSV)}), &slot); err != nil {
					t.Fatal(err)
				}
				upload(t, slot, receivablesCSV)
				var f records.FileJSON
				_ = json.Unmarshal(e.call("kadu_files_confirm", map[string]any{"file_id": slot.ID}), &f)
				if f.Status != records.FileReady {
					t.Fatalf("confirmed: %+v", f)
				}

				// 2. A workflow that reads it and writes a result.
				var task taskJSON
				_ = json.Unmarshal(e.call("kadu_tasks_create", map[string]any{"name": "Conciliar recebíveis", "steps": []map[string]any{
					{"id": "read", "tool": runtime.ToolReadText, "arguments": map[string]any{"index": 0}},
					{"id": "write", "tool": runtime.ToolWriteOutput, "arguments": map[string]any{"filename": "conciliacao.csv", "content_type": "text/csv",
						"content": "{{steps.read.text}}"}},
				}}), &task)
				if task.ID == "" {
					t.Fatal("no task")
				}
				e.do(e.Owner, "PUT", "/api/v1/tasks/"+task.ID+"/destinations", map[string]any{"destinations": []map[string]any{
					{"kind": "webhook"}, {"kind": "email", "target": "financeiro@mine.example", "on": []string{"succeeded"}}}}, 200)

				// Another organization's file cannot be given to a run.
				code, resp := e.Do(e.Owner, "POST", "/api/v1/tasks/"+task.ID+"/run", map[string]any{"input_file_ids": []string{"00000000-0000-0000-0000-000000000000"}})
				if code != 422 || !strings.Contains(resp, "input_file_ids.0") {
					t.Fatalf("a run on a file that does not exist: %d %s", code, resp)
				}

				// Through MCP the same refusal comes before any confirmation
				// is asked: nobody confirms a run that would be refused.
				bad := confirmedCall(t, e.Env, "kadu_tasks_run", map[string]any{"task_id": task.ID,
					"input_file_ids": []string{"00000000-0000-0000-0000-000000000000"}}, "")
				if bad["requestState"] != nil || bad["inputRequests"] != nil || bad["isError"] != true {
					t.Fatalf("a run on a missing file asked for a confirmation: %v", bad)
				}

				// 3. Run it through MCP, confirmed in the chat.
				args := map[string]any{"task_id": task.ID, "input_file_ids": []string{slot.ID}}
				ask := confirmedCall(t, e.Env, "kadu_tasks_run", args, "")
				done := confirmedCall(t, e.Env, "kadu_tasks_run", args, ask["requestState"].(string))
				content, _ := done["content"].([]any)
				if done["isError"] == true || len(content) == 0 {
					t.Fatalf("run: %v", done)
				}
				var queued struct{ Data executionJSON }
				_ = json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &queued)
				x := e.wait(queued.Data.ID, records.ExecSucceeded)
				if !strings.Contains(deref(x.OutputJSON), "conciliacao.csv") {
					t.Fatalf("output %s", deref(x.OutputJSON))
				}

				// 4. The output file, listed on the execution, downloaded by URL.
				var outs []records.FileJSON
				_ = json.Unmarshal(e.call("kadu_executions_files", map[string]any{"execution_id": x.ID}), &outs)
				if len(outs) != 1 || outs[0].Purpose != "output" || outs[0].Filename != "conciliacao.csv" || outs[0].ExecutionID == nil || *outs[0].ExecutionID != x.ID {
					t.Fatalf("outputs %+v", outs)
				}
				var dl struct{ URL string }
				_ = json.Unmarshal(e.call("kadu_files_download", map[string]any{"file_id": outs[0].ID}), &dl)
				code, h, body := httpGet(t, dl.URL)
				if code != 200 || body != receivablesCSV || !strings.Contains(h.Get("Content-Disposition"), "conciliacao.csv") {
					t.Fatalf("download: %d %q %v", code, body, h)
				}
				if text, isErr := e.Call(e.Other, "kadu_files_get", map[string]any{"file_id": outs[0].ID}); !isErr || !strings.Contains(text, "not_found") {
					t.Fatalf("another organization reads the output: %s", text)
				}

				// 5. The webhook: signed with the new secret and, in the
				// rotation's grace, the old one.
				deadline := time.Now().Add(20 * time.Second)
				for rcv.Count() == 0 && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				ds, err := e.svc.hooks.ListDeliveries(e.ctx, e.Mine.ID, e.MineWS.ID, hook.ID, "", 10)
				if err != nil || len(ds) != 1 || ds[0].EventSlug != "kadu.execution.succeeded" {
					t.Fatalf("deliveries %+v %v", ds, err)
				}
				got, ok := rcv.ByDelivery(ds[0].ID)
				if !ok {
					t.Fatal("the receiver got nothing")
				}
				sig := got.Header.Get(webhooks.SignatureHeader)
				if !webhooks.Verify(newSecret, got.Body, sig) || !webhooks.Verify(oldSecret, got.Body, sig) {
					t.Fatalf("signature %q verifies with the new and the old secret", sig)
				}
				var ev struct {
					Data struct {
						Execution   executionJSON      `json:"execution"`
						OutputFiles []records.FileJSON `json:"output_files"`
					} `json:"data"`
				}
				if err := json.Unmarshal(got.Body, &ev); err != nil || ev.Data.Execution.ID != x.ID || len(ev.Data.OutputFiles) != 1 {
					t.Fatalf("event body %s", got.Body)
				}

				// 6. The e-mail, with a short-lived link to the output file.
				var msgs, tos []string
				for time.Now().Before(deadline) {
					if msgs, tos = relay.messages(); len(msgs) > 0 {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				if len(msgs) != 1 || tos[0] != "financeiro@mine.example" {
					t.Fatalf("mail: %d to %v", len(msgs), tos)
				}
				text := mailText(t, msgs[0])
				link := regexp.MustCompile(`https?://\S+`).FindString(text[strings.Index(text, "conciliacao.csv"):])
				if !strings.Contains(text, "Status: succeeded") || link == "" {
					t.Fatalf("mail text: %s", text)
				}
				if code, _, body := httpGet(t, link); code != 200 || body != receivablesCSV {
					t.Fatalf("the e-mail's link: %d %q", code, body)
				}
			})
		})
	}
}

// mailText is the decoded text of a message as the relay got it.
func mailText(t *testing.T, raw string) string {
	t.Helper()
	m, err := netmail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader = m.Body
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		r = quotedprintable.NewReader(r)
	}
	b, _ := io.ReadAll(r)
	return string(b)
}
