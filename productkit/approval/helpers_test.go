package approval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/oauth/server/sqlstore"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/approval"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

// clock is a settable clock for the approval policy.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// env is a product listener with the approval policy (approvaltest) on a
// real loopback server.
type env struct {
	t     *testing.T
	srv   *approvaltest.Server
	ts    *httptest.Server
	db    *store.DB
	clock *clock
	owner string // token of the owner
}

func newEnv(t *testing.T, db *store.DB, opts approvaltest.Options) *env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The tables of the page's sign-in and of the approvals, which
	// storetest's platform migrations leave out.
	if _, err := db.Migrate(context.Background(), sqlstore.Migrations, approval.Migrations); err != nil {
		t.Fatal(err)
	}
	c := &clock{}
	if opts.Now == nil {
		opts.Now = c.Now
	}
	opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := approvaltest.New(context.Background(), db, "http://"+ln.Addr().String(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv.Handler)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Policy.Close(ctx); err != nil {
			t.Errorf("closing the policy: %v", err)
		}
		ts.Close()
	})
	e := &env{t: t, srv: srv, ts: ts, db: db, clock: c}
	e.owner = e.token(srv.Owner, srv.Org.ID)
	return e
}

func (e *env) token(u accounts.User, orgID string) string {
	e.t.Helper()
	tok, err := e.srv.Token(u, orgID)
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// call is one tools/call.
type call struct {
	token          string
	modern         bool   // 2026-07-28 (else 2025-06-18)
	caps           string // 2026 clientCapabilities (default {})
	tool           string // default projects_delete
	arguments      string // default {"project":"alpha"}
	requestState   string
	inputResponses string
	// clientInfo is the 2026 envelope's clientInfo as JSON (default
	// {"name":"test","version":"1"}; "-" sends none).
	clientInfo string
}

type reply struct {
	status int
	body   []byte
	msg    struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
}

func (e *env) do(c call) reply {
	e.t.Helper()
	if c.tool == "" {
		c.tool = "projects_delete"
	}
	if c.arguments == "" {
		c.arguments = `{"project":"alpha"}`
	}
	if c.caps == "" {
		c.caps = `{}`
	}
	if c.token == "" {
		c.token = e.owner
	}
	params := map[string]json.RawMessage{"name": mustJSON(c.tool), "arguments": json.RawMessage(c.arguments)}
	version := mcp.Version20250618
	if c.modern {
		version = mcp.Version20260728
		info := `,"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}`
		switch c.clientInfo {
		case "":
		case "-":
			info = ""
		default:
			info = `,"io.modelcontextprotocol/clientInfo":` + c.clientInfo
		}
		params["_meta"] = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + c.caps + info + `}`)
	}
	if c.requestState != "" {
		params["requestState"] = mustJSON(c.requestState)
	}
	if c.inputResponses != "" {
		params["inputResponses"] = json.RawMessage(c.inputResponses)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("MCP-Protocol-Version", version)
	if c.modern {
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", c.tool)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode}
	r.body, _ = io.ReadAll(resp.Body)
	if err := json.Unmarshal(r.body, &r.msg); err != nil {
		e.t.Fatalf("answer is not JSON (%d): %s", r.status, r.body)
	}
	return r
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// text is the result's text blocks, joined.
func (r reply) text() string {
	var parts []string
	content, _ := r.msg.Result["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			s, _ := m["text"].(string)
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func (r reply) isError() bool { return r.msg.Result["isError"] == true }

// link reads a link result.
func (e *env) link(r reply) approval.LinkResult {
	e.t.Helper()
	if r.status != http.StatusOK || r.msg.Error != nil || r.isError() {
		e.t.Fatalf("want a link result, got %d:\n%s", r.status, r.body)
	}
	var l approval.LinkResult
	if err := json.Unmarshal([]byte(r.text()), &l); err != nil {
		e.t.Fatalf("the result's text is not the link object: %v\n%s", err, r.body)
	}
	return l
}

// createLink makes a 2025 call and returns its link.
func (e *env) createLink(arguments string) approval.LinkResult {
	e.t.Helper()
	return e.link(e.do(call{arguments: arguments}))
}

func (e *env) approval(id string) *approval.Approval {
	e.t.Helper()
	a, err := e.srv.Policy.Store().Get(context.Background(), id)
	if err != nil {
		e.t.Fatalf("approval %s: %v", id, err)
	}
	return a
}

// waitStatus polls an approval until it reaches want.
func (e *env) waitStatus(id string, want approval.Status) *approval.Approval {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := e.approval(id)
		if a.Status == want {
			return a
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("approval %s is %s, want %s", id, a.Status, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *env) wantRuns(project string, n int) {
	e.t.Helper()
	if got := e.srv.Projects.Runs(project); got != n {
		e.t.Errorf("projects_delete ran %d times for %s, want %d", got, project, n)
	}
}

// browser is a person's browser: a cookie jar; redirects are not followed
// so each step can be looked at.
type browser struct {
	t    *testing.T
	e    *env
	c    *http.Client
	last page
	// lang, when set, is the Accept-Language of every request.
	lang string
}

type page struct {
	status int
	header http.Header
	body   string
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	if b.lang != "" {
		req.Header.Set("Accept-Language", b.lang)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func (b *browser) get(u string) page {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = b.e.ts.URL + u
	}
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.do(req)
}

func (b *browser) post(u string, form url.Values, headers ...string) page {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = b.e.ts.URL + u
	}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return b.do(req)
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

func (p page) hidden() url.Values {
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(p.body, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// open opens an approval link signed in as email: the page sends an
// anonymous visitor to sign in, and sign-in comes back to it. It returns
// the approval page.
func (b *browser) open(link, email, password string) page {
	b.t.Helper()
	p := b.get(link)
	if p.status == http.StatusSeeOther && strings.HasPrefix(p.header.Get("Location"), "/oauth/sign-in?") {
		signIn := b.get(p.header.Get("Location"))
		form := signIn.hidden()
		if form.Get("next") == "" {
			b.t.Fatalf("the sign-in page does not return to the approval page:\n%s", signIn.body)
		}
		form.Set("email", email)
		form.Set("password", password)
		done := b.post("/oauth/sign-in", form)
		if done.status != http.StatusSeeOther {
			b.t.Fatalf("sign-in as %s: %d\n%s", email, done.status, done.body)
		}
		if want := mustPath(link); done.header.Get("Location") != want {
			b.t.Fatalf("sign-in went to %q, want %q", done.header.Get("Location"), want)
		}
		p = b.get(link)
	}
	return p
}

func mustPath(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		panic(err)
	}
	return u.Path
}

// decide presses a button of an approval page.
func (b *browser) decide(approvalPage page, link, decision string) page {
	b.t.Helper()
	form := approvalPage.hidden()
	form.Set("decision", decision)
	return b.post(mustPath(link), form)
}
