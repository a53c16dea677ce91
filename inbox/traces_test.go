package inbox

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/tracing/tracingtest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// tracedEnv is the Inbox served with tracing on: its database, its queue
// and its endpoint traced by one provider that exports, over OTLP/HTTP,
// to a loopback receiver.
func tracedEnv(t *testing.T, d store.Dialect, cfg Config) (*testEnv, *tracingtest.Collector, trace.TracerProvider) {
	t.Helper()
	col := tracingtest.NewCollector(t)
	tp := col.Provider(t)
	db := storetest.OpenWith(t, d, store.Options{Tracer: tp}, Migrations)
	e := &testEnv{producttest.Start(t, db, Spec(cfg), producttest.Options{Tracer: tp,
		Webhooks: productkit.WebhookSettings{AllowPrivateTargets: cfg.WebhookAllowPrivateTargets, Retries: cfg.WebhookRetries}})}
	return e, col, tp
}

// modernMeta is params._meta of a 2026 request, with extra members.
func modernMeta(extra map[string]any) map[string]any {
	m := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "tracetest", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// TestTracesMCPToolCall: one tools/call through the Inbox's /mcp with a
// traceparent in params._meta is a SERVER span by the semantic
// conventions for MCP, in the client's trace and under the client's span,
// with the in-process route's span under it and the database's under
// that; an HTTP traceparent header is the parent when _meta has none, and
// only a link when _meta has one; an unknown tool's error is recorded
// without its made-up name.
func TestTracesMCPToolCall(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			e, col, _ := tracedEnv(t, d, Config{SMTPAddr: "off"})
			mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)

			const (
				metaTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
				metaSpan   = "00f067aa0ba902b7"
				headTrace  = "0af7651916cd43dd8448eb211c80319c"
				headSpan   = "b7ad6b7169203331"
				headerName = "traceparent"
			)
			out := e.RPC(e.Owner, "tools/call", map[string]any{"name": "emails_list", "arguments": map[string]any{},
				"_meta": modernMeta(map[string]any{"traceparent": "00-" + metaTrace + "-" + metaSpan + "-01", "tracestate": "rojo=00f067aa0ba902b7"})})
			if strings.Contains(out, `"error"`) || strings.Contains(out, `"isError":true`) {
				t.Fatalf("emails_list: %s", out)
			}
			spans := col.Wait(t, 10*time.Second, func(s []tracingtest.Span) bool {
				return len(tracingtest.All(tracingtest.InTrace(s, metaTrace), "tools/call emails_list")) == 1
			})
			tr := tracingtest.InTrace(spans, metaTrace)
			t.Logf("tools/call with traceparent in params._meta (%s):\n%s", d, tracingtest.Tree(tr))

			server := tracingtest.Find(t, tr, "tools/call emails_list")
			want := map[string]string{
				"mcp.method.name": "tools/call", "gen_ai.tool.name": "emails_list", "gen_ai.operation.name": "execute_tool",
				"mcp.protocol.version": "2026-07-28", "kobana.mcp.era": "2026", "jsonrpc.request.id": "1",
				"network.transport": "tcp", "network.protocol.name": "http",
			}
			for k, v := range want {
				if server.Attrs[k] != v {
					t.Errorf("SERVER span %s = %q, want %q", k, server.Attrs[k], v)
				}
			}
			if server.Kind != "SERVER" || server.ParentID != metaSpan || server.Error {
				t.Fatalf("SERVER span: kind %s, parent %s (want %s), error %v", server.Kind, server.ParentID, metaSpan, server.Error)
			}
			route := tracingtest.Find(t, tr, "GET /api/v1/emails")
			if route.ParentID != server.SpanID || route.Kind != "INTERNAL" || route.Attrs["http.route"] != "/api/v1/emails" || route.Attrs["http.response.status_code"] != "200" {
				t.Fatalf("route span: %+v", route)
			}
			system := map[store.Dialect]string{store.SQLite: "sqlite", store.Postgres: "postgresql"}[d]
			var queries int
			for _, s := range tr {
				if s.Attrs["db.system.name"] != "" {
					if s.Attrs["db.system.name"] != system || !tracingtest.Ancestor(tr, server, s) {
						t.Fatalf("database span %q of %s, outside the request: %+v", s.Name, s.Attrs["db.system.name"], s)
					}
					if tracingtest.Ancestor(tr, route, s) {
						queries++
					}
				}
			}
			if queries == 0 {
				t.Fatalf("no database span under the route:\n%s", tracingtest.Tree(tr))
			}

			// The HTTP header alone: it is the parent.
			e.RPC(e.Owner, "tools/call", map[string]any{"name": "inboxes_list", "arguments": map[string]any{}, "_meta": modernMeta(nil)},
				headerName, "00-"+headTrace+"-"+headSpan+"-01")
			spans = col.Wait(t, 10*time.Second, func(s []tracingtest.Span) bool {
				return len(tracingtest.All(tracingtest.InTrace(s, headTrace), "tools/call inboxes_list")) == 1
			})
			if s := tracingtest.Find(t, tracingtest.InTrace(spans, headTrace), "tools/call inboxes_list"); s.ParentID != headSpan {
				t.Fatalf("with the header alone the parent is %s, want %s", s.ParentID, headSpan)
			}

			// Both: _meta wins, the header's context is linked.
			const bothTrace = "11111111111111111111111111111111"
			e.RPC(e.Owner, "tools/call", map[string]any{"name": "workspaces_list", "arguments": map[string]any{},
				"_meta": modernMeta(map[string]any{"traceparent": "00-" + bothTrace + "-2222222222222222-01"})},
				headerName, "00-"+headTrace+"-"+headSpan+"-01")
			spans = col.Wait(t, 10*time.Second, func(s []tracingtest.Span) bool {
				return len(tracingtest.All(tracingtest.InTrace(s, bothTrace), "tools/call workspaces_list")) == 1
			})
			both := tracingtest.Find(t, tracingtest.InTrace(spans, bothTrace), "tools/call workspaces_list")
			if both.ParentID != "2222222222222222" || len(both.Links) != 1 || both.Links[0] != headTrace+"/"+headSpan {
				t.Fatalf("with both, parent %s and links %v", both.ParentID, both.Links)
			}

			// An unknown tool: error.type is the JSON-RPC code, and the span
			// is not named after the made-up name.
			const badTrace = "33333333333333333333333333333333"
			e.RPC(e.Owner, "tools/call", map[string]any{"name": "no_such_tool_x", "arguments": map[string]any{},
				"_meta": modernMeta(map[string]any{"traceparent": "00-" + badTrace + "-4444444444444444-01"})})
			spans = col.Wait(t, 10*time.Second, func(s []tracingtest.Span) bool { return len(tracingtest.InTrace(s, badTrace)) > 0 })
			bad := tracingtest.Find(t, tracingtest.InTrace(spans, badTrace), "tools/call")
			if !bad.Error || bad.Attrs["error.type"] != "-32602" || bad.Attrs["rpc.response.status_code"] != "-32602" || bad.Attrs["gen_ai.tool.name"] != "" {
				t.Fatalf("unknown tool span: %+v", bad)
			}
			t.Logf("an unknown tool:\n%s", tracingtest.Tree(tracingtest.InTrace(spans, badTrace)))
		})
	}
}

// TestTracesInboxEmail: one e-mail received over SMTP is one trace — the
// SMTP DATA span, its processing at intake (the agent run's insert under
// it, no processing job), and the webhook delivery of email.processed
// with its HTTP request, which carries the trace to the receiver.
func TestTracesInboxEmail(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			cfg := whConfig()
			e, col, tp := tracedEnv(t, d, cfg)
			rcv := producttest.NewReceiver(t)
			w, _ := whCreate(t, e, map[string]any{"label": "Receiver", "url": rcv.URL, "subscribed_events": []string{"email.processed"}})
			mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
			// The intake of the product's own kind, on a listener whose
			// address the test knows, tracing with the same provider.
			smtpCfg := cfg.withDefaults()
			smtpCfg.SMTPAddr = "127.0.0.1:0"
			s := &service{db: e.DB, accounts: e.Acc, jobs: e.Jobs, cfg: smtpCfg, tracer: tracerOf(tp)}
			s.hooks = webhooks.New(e.DB, e.Jobs, webhooks.Config{Product: "inbox", AllowPrivateTargets: true})
			ms := startMailServer(t, s)
			raw := mailFixture(t, "mixed_pdf.eml")
			if err := smtpSend(t, ms.addr().String(), "bounces@sender.example", []string{"contas@inbox.localhost"}, raw); err != nil {
				t.Fatal(err)
			}
			delivery := whWaitDeliveries(t, e, w.ID, 1)[0]
			got, ok := rcv.ByDelivery(delivery.ID)
			if !ok {
				t.Fatal("the receiver got no delivery")
			}
			spans := col.Wait(t, 10*time.Second, func(s []tracingtest.Span) bool {
				return len(tracingtest.All(s, "SMTP DATA")) == 1 && len(tracingtest.All(s, "river.work/webhook_delivery")) > 0
			})
			data := tracingtest.Find(t, spans, "SMTP DATA")
			tr := tracingtest.InTrace(spans, data.TraceID)
			t.Logf("one e-mail through SMTP intake to its webhook (%s):\n%s", d, tracingtest.Tree(tr))
			if data.Kind != "SERVER" || data.ParentID != "" || data.Attrs["inbox.email.id"] == "" {
				t.Fatalf("SMTP DATA span: %+v", data)
			}
			if jobs := tracingtest.All(tr, "river.work/inbox*"); len(jobs) != 0 {
				t.Fatalf("an e-mail processed at intake was worked by a job:\n%s", tracingtest.Tree(tr))
			}
			var process tracingtest.Span
			for _, s := range tr {
				if strings.HasPrefix(s.Attrs["db.query.text"], "INSERT INTO agent_runs") {
					process = s
				}
			}
			if process.SpanID == "" {
				t.Fatalf("no span of the agent run's insert:\n%s", tracingtest.Tree(tr))
			}
			deliver := tracingtest.Find(t, tr, "river.work/webhook_delivery")
			var post tracingtest.Span
			for _, s := range tr {
				if s.Kind == "CLIENT" && s.Attrs["http.request.method"] == "POST" && tracingtest.Ancestor(tr, deliver, s) {
					post = s
				}
			}
			if post.SpanID == "" {
				t.Fatalf("no CLIENT span of the delivery's POST under %s:\n%s", deliver.Name, tracingtest.Tree(tr))
			}
			if !tracingtest.Ancestor(tr, data, process) || !tracingtest.Ancestor(tr, data, deliver) {
				t.Fatalf("the processing and the delivery are not under the intake:\n%s", tracingtest.Tree(tr))
			}
			if tp := got.Header.Get("Traceparent"); !strings.HasPrefix(tp, fmt.Sprintf("00-%s-%s-", data.TraceID, post.SpanID)) {
				t.Fatalf("the delivery carried traceparent %q, want the trace %s and the POST's span %s", tp, data.TraceID, post.SpanID)
			}
		})
	}
}
