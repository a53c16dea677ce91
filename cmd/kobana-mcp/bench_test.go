package main

// The benchmarks of the signed-in path (docs/performance.md, "Benchmarks",
// "The signed-in path", and "Performance of the signed-in path"), side by
// side in one run so their ratios hold on a loaded machine:
//
//	go test -run '^$' -bench 'Path|Transport' -benchtime 2s ./cmd/kobana-mcp/
//
// (a) BenchmarkTransport*: the mcp handler and the official Go SDK's
// stateless handler serving the same 60 tools, tools/list and a trivial
// tools/call, no auth; (b) BenchmarkPath*: the Inbox exactly as serve
// assembles it — access log, metrics, overload guard, unauthenticated
// limit, the built-in authorization server's routes, a real token of the
// built-in issuer verified with the signing keys in the database, the role
// and grant read, the rate limiter in memory, the bridge, rest and SQLite —
// for server/discover, tools/list and emails_list, and a bare net/http
// handler writing a captured answer (the floor).

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/observe"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/toolreg"
)

const benchMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

// benchWriter keeps the status and the first bytes of the answer, so a
// benchmark checks it served what it measures, and nothing more.
type benchWriter struct {
	h      http.Header
	status int
	keep   bool
	head   []byte
}

func (w *benchWriter) Header() http.Header { return w.h }
func (w *benchWriter) Write(p []byte) (int, error) {
	if w.keep {
		w.head = append(w.head, p...)
	}
	return len(p), nil
}
func (w *benchWriter) WriteHeader(s int) { w.status = s }

// benchRequest is one POST the loop replays; header are name, value pairs.
type benchRequest struct {
	body   []byte
	header http.Header
}

func newBenchRequest(body string, header ...string) benchRequest {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return benchRequest{body: []byte(body), header: h}
}

// serve runs one request and returns the status and the answer.
func (br benchRequest) serve(h http.Handler) (int, string) {
	req := httptest.NewRequest("POST", "/mcp", bytes.NewReader(br.body))
	req.RemoteAddr = "127.0.0.1:40000"
	for k, v := range br.header {
		req.Header[k] = v
	}
	w := &benchWriter{h: http.Header{}, status: 200, keep: true}
	h.ServeHTTP(w, req)
	return w.status, string(w.head)
}

// run checks the first answer holds want, then measures.
func (br benchRequest) run(b *testing.B, h http.Handler, want string) {
	b.Helper()
	if status, got := br.serve(h); status != 200 || !strings.Contains(got, want) {
		b.Fatalf("status %d, answer %.2000s; want it to contain %q", status, got, want)
	}
	rd := bytes.NewReader(br.body)
	req := httptest.NewRequest("POST", "/mcp", rd)
	req.RemoteAddr = "127.0.0.1:40000"
	w := &benchWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rd.Reset(br.body)
		req.Body = io.NopCloser(rd)
		req.Header = br.header.Clone()
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

// benchTools are the 60 tools both transports serve: the same names,
// descriptions and input schema; the call answers a short text.
const benchTools = 60

var benchSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
	"id": {Type: "string", Description: "The e-mail's id or external_id."}, "limit": {Type: "integer", Description: "How many per page."}}}

func benchToolName(i int) string { return "tool_" + strconv.Itoa(i) }

func ourTransport(b *testing.B) http.Handler {
	var list []mcp.Tool
	for i := range benchTools {
		list = append(list, mcp.Tool{
			Name: benchToolName(i), Title: "Get an e-mail", Description: "Gets one e-mail by id or external_id.",
			InputSchema: benchSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("hello")}}, nil
			},
		})
	}
	h, err := mcp.NewHandler(mcp.Options{Name: "bench", Version: "1", PageSize: 1000}, mcp.Catalog{Tools: list})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

func sdkTransport() http.Handler {
	server := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	for i := range benchTools {
		server.AddTool(&sdk.Tool{Name: benchToolName(i), Title: "Get an e-mail", Description: "Gets one e-mail by id or external_id.",
			InputSchema: benchSchema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)}},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil
			})
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

var (
	ourList  = newBenchRequest(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+benchMeta+`}}`, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	ourCall  = newBenchRequest(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool_7","arguments":{"id":"0b7c"},`+benchMeta+`}}`, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "tool_7")
	sdkList  = newBenchRequest(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, "MCP-Protocol-Version", "2025-06-18")
	sdkCall  = newBenchRequest(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool_7","arguments":{"id":"0b7c"}}}`, "MCP-Protocol-Version", "2025-06-18")
	wantList = `"tool_59"`
	wantCall = `"hello"`
)

func BenchmarkTransportToolsList60Ours(b *testing.B) { ourList.run(b, ourTransport(b), wantList) }
func BenchmarkTransportToolsList60SDK(b *testing.B)  { sdkList.run(b, sdkTransport(), wantList) }
func BenchmarkTransportToolsCallOurs(b *testing.B)   { ourCall.run(b, ourTransport(b), wantCall) }
func BenchmarkTransportToolsCallSDK(b *testing.B)    { sdkCall.run(b, sdkTransport(), wantCall) }

// benchInbox is the Inbox listener as serve builds it (benchProduct).
func benchInbox(b *testing.B) (http.Handler, string) { return benchProduct(b, "inbox") }

// benchProduct is the listener of the product key as serve builds it
// (serve.go), over a fresh SQLite database in the data directory, and a
// token of the built-in issuer for the demo owner with every scope and a
// grant id (as a sign-in gives), so the grant's revocation is checked too.
func benchProduct(b testing.TB, key string) (http.Handler, string) {
	b.Helper()
	ctx := context.Background()
	dataDir := b.TempDir()
	var s settings
	authF := addAuthFlags(&s)
	limitF := addLimitFlags(&s)
	jf := addJobFlags(&s)
	huge := "reads=1000000000-S,writes=1000000000-S,org-reads=1000000000-S,org-writes=1000000000-S"
	if err := s.Parse("bench", []string{"--rate-limits", huge, "--jobs", "off"}, io.Discard); err != nil {
		b.Fatal(err)
	}
	// The logger serve builds with --log-format json (serve.go), writing
	// to nowhere, so the access line takes the path it takes there.
	logOut := observe.NewLogWriter(io.Discard, 0)
	b.Cleanup(func() { logOut.Close() })
	log := slog.New(observe.LogHandler{Handler: slog.NewJSONHandler(logOut, nil), Buffer: logOut})
	lim, err := limitF.open(ctx, log)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lim.store.Close() })
	sealer, secret, db, code := openDataDir(ctx, dataDir, "", "", nil, io.Discard)
	if code != 0 {
		b.Fatal("data dir")
	}
	if err := ensureDemo(ctx, db, io.Discard); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	verify, err := authF.verification(ctx, db, secret)
	if err != nil {
		b.Fatal(err)
	}
	queue, err := jf.open(ctx, db, false, nil, log)
	if err != nil {
		b.Fatal(err)
	}
	var spec *productkit.Spec
	for _, p := range products() {
		if p.Key == key {
			spec = p
		}
	}
	if spec == nil {
		b.Fatalf("no product %q", key)
	}
	public := "http://127.0.0.1:18081"
	as, err := newAuthServer(spec, public, db, verify, authF, nil, log)
	if err != nil {
		b.Fatal(err)
	}
	p, err := productkit.Assemble(spec, productkit.Deps{DataDir: dataDir + "/" + key, PublicURL: public, States: sealer, Logger: log, DB: db,
		Issuer: verify.issuer(public), Keys: verify.keys, Roles: verify.roles, Changes: verify.changes, RateLimits: lim.product(spec.Key), AuthServer: as,
		Jobs: queue, Secret: secret, Tools: toolreg.New()})
	if err != nil {
		b.Fatal(err)
	}
	checks := []observe.Check{{Name: "database", Ping: db.Ping}}
	// The refusals' spelling of error codes comes from serve's server
	// (p.BaseContext), at no cost per request; these requests are never
	// refused, so the benchmarks have no server to carry it.
	h := observe.Instrument(spec.Key, observe.NewMetrics(), log, lim.wrap(observe.Health(checks, withAuthServer(as, p.Handler))))
	owner, err := accounts.New(db, accounts.Options{}).GetUserByEmail(ctx, accounts.DemoOwnerEmail)
	if err != nil {
		b.Fatal(err)
	}
	ms, err := accounts.New(db, accounts.Options{}).Memberships(ctx, owner.ID)
	if err != nil || len(ms) != 1 {
		b.Fatal(ms, err)
	}
	issuer := &oauth.Issuer{URL: public, Keys: verify.keySet}
	token, _, err := issuer.Issue(oauth.Grant{Subject: owner.ID, UserID: owner.ID, Email: owner.Email, OrganizationID: ms[0].OrganizationID,
		ClientID: "bench", Audience: public + productkit.MCPPath, Scopes: spec.Scopes(), TTL: time.Hour, GrantID: "bench-grant"})
	if err != nil {
		b.Fatal(err)
	}
	return h, token
}

func inboxRequest(token, method, params string, name ...string) benchRequest {
	h := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Authorization", "Bearer " + token}
	if len(name) > 0 {
		h = append(h, "Mcp-Name", name[0])
	}
	return newBenchRequest(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+params+benchMeta+`}}`, h...)
}

func BenchmarkPathInboxDiscover(b *testing.B) {
	h, token := benchInbox(b)
	inboxRequest(token, "server/discover", "").run(b, h, `"supportedVersions"`)
}

func BenchmarkPathInboxToolsList(b *testing.B) {
	h, token := benchInbox(b)
	inboxRequest(token, "tools/list", "").run(b, h, `"emails_list"`)
}

func BenchmarkPathInboxEmailsList(b *testing.B) {
	h, token := benchInbox(b)
	inboxRequest(token, "tools/call", `"name":"emails_list","arguments":{"limit":10},`, "emails_list").run(b, h, `next_cursor`)
}

// BenchmarkPathFloor is bare net/http writing a captured answer of the
// Inbox's emails_list: the floor the product path is compared with.
func BenchmarkPathFloor(b *testing.B) {
	inbox, token := benchInbox(b)
	_, answer := inboxRequest(token, "tools/call", `"name":"emails_list","arguments":{"limit":10},`, "emails_list").serve(inbox)
	body := []byte(answer)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	inboxRequest(token, "tools/call", `"name":"emails_list","arguments":{"limit":10},`, "emails_list").run(b, h, `next_cursor`)
}

// pathCase is one signed-in request of a product as serve assembles it:
// the Path benchmarks of Dunning and Kadu (docs/performance.md, "Kadu and
// Dunning as fast as the Inbox (issue 28)") and the test that serves each
// once (TestPathCasesServe), so the benchmarks cannot rot unseen.
type pathCase struct {
	product, method, params, tool, want string
}

var (
	pathKaduDiscover       = pathCase{product: "kadu", method: "server/discover", want: `"supportedVersions"`}
	pathKaduToolsList      = pathCase{product: "kadu", method: "tools/list", want: `"kadu_executions_list"`}
	pathKaduExecutionsList = pathCase{product: "kadu", method: "tools/call", params: `"name":"kadu_executions_list","arguments":{"limit":10},`,
		tool: "kadu_executions_list", want: `next_cursor`}
	pathDunningDiscover  = pathCase{product: "dunning", method: "server/discover", want: `"supportedVersions"`}
	pathDunningToolsList = pathCase{product: "dunning", method: "tools/list", want: `"dunning_charges_list"`}
)

// request is the case's POST with tok.
func (c pathCase) request(tok string) benchRequest {
	if c.tool != "" {
		return inboxRequest(tok, c.method, c.params, c.tool)
	}
	return inboxRequest(tok, c.method, c.params)
}

func (c pathCase) bench(b *testing.B) {
	h, tok := benchProduct(b, c.product)
	c.request(tok).run(b, h, c.want)
}

func BenchmarkPathKaduDiscover(b *testing.B)       { pathKaduDiscover.bench(b) }
func BenchmarkPathKaduToolsList(b *testing.B)      { pathKaduToolsList.bench(b) }
func BenchmarkPathKaduExecutionsList(b *testing.B) { pathKaduExecutionsList.bench(b) }
func BenchmarkPathDunningDiscover(b *testing.B)    { pathDunningDiscover.bench(b) }
func BenchmarkPathDunningToolsList(b *testing.B)   { pathDunningToolsList.bench(b) }

// TestPathCasesServe runs each Path benchmark's request of Dunning and
// Kadu once, at its smallest size: the product assembled as serve does, a
// signed-in request, the answer the benchmark expects.
func TestPathCasesServe(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]pathCase{"KaduDiscover": pathKaduDiscover, "KaduToolsList": pathKaduToolsList,
		"KaduExecutionsList": pathKaduExecutionsList, "DunningDiscover": pathDunningDiscover, "DunningToolsList": pathDunningToolsList} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, tok := benchProduct(t, c.product)
			if status, got := c.request(tok).serve(h); status != 200 || !strings.Contains(got, c.want) {
				t.Fatalf("status %d, answer %.500s; want it to contain %q", status, got, c.want)
			}
		})
	}
}
