package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// callServe is an in-process `serve` of the three products on ports the
// kernel picked, for `kobana-mcp call` to find through the data
// directory, as a person's would after `kobana-mcp serve`.
type callServe struct {
	dataDir, dbURL string
	// out is what serve printed: the demo owner's password, first.
	out *syncBuffer
}

func startCallServe(t *testing.T, engine store.Dialect) *callServe {
	t.Helper()
	return startCallServeAt(t, engine, t.TempDir())
}

// startCallServeAt is startCallServe with its data directory at dataDir.
func startCallServeAt(t *testing.T, engine store.Dialect, dataDir string) *callServe {
	t.Helper()
	s := &callServe{dataDir: dataDir, out: &syncBuffer{}}
	if engine == store.Postgres {
		s.dbURL = storetest.URL(t, engine)
	}
	args := []string{"serve", "--data-dir", s.dataDir, "--database-url", s.dbURL, "--products", "inbox,dunning,kadu", "--shutdown-grace", "2s"}
	for _, p := range []string{"inbox", "dunning", "kadu"} {
		args = append(args, "--"+p+"-addr", "127.0.0.1:0", "--"+p+"-public-url", "")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr bytes.Buffer
	var mu sync.Mutex
	go func() {
		mu.Lock()
		defer mu.Unlock()
		done <- run(ctx, args, s.out, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Errorf("serve did not stop")
		}
	})
	// serve records the endpoints once every product listens, and prints
	// them once the demo account exists.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		b, err := os.ReadFile(filepath.Join(s.dataDir, endpointsFile))
		var urls map[string]string
		if err == nil && json.Unmarshal(b, &urls) == nil && len(urls) == 3 && strings.Count(s.out.String(), " MCP endpoint: ") == 3 {
			return s
		}
		select {
		case code := <-done:
			mu.Lock()
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("serve recorded no endpoints within 3 minutes")
		}
	}
}

// password is the demo owner's password, as serve printed it on the
// data directory's first start.
func (s *callServe) password(t *testing.T) string {
	t.Helper()
	m := demoPasswordRE.FindStringSubmatch(s.out.String())
	if m == nil {
		t.Fatalf("serve printed no demo password:\n%s", s.out.String())
	}
	return m[1]
}

// endpoint is a product's MCP endpoint as serve recorded it.
func (s *callServe) endpoint(t *testing.T, product string) string {
	t.Helper()
	u := recordedEndpoint(s.dataDir, product)
	if u == "" {
		t.Fatalf("no recorded endpoint of %s", product)
	}
	return u + "/mcp"
}

// wireLog counts what call posts: each request's Mcp-Method, and whether
// it answered a confirmation.
type wireLog struct {
	mu      sync.Mutex
	methods []string
}

func (w *wireLog) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	m := r.Header.Get("Mcp-Method")
	if bytes.Contains(body, []byte(`"inputResponses"`)) {
		m += "+answer"
	}
	w.mu.Lock()
	w.methods = append(w.methods, m)
	w.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (w *wireLog) count(method string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, m := range w.methods {
		if m == method {
			n++
		}
	}
	return n
}

// callResult is one run of `kobana-mcp call`.
type callResult struct {
	code        int
	out, errOut string
	wire        *wireLog
}

// call runs `kobana-mcp call` against the serve with term as its
// terminal (its http is replaced by a wireLog), signed in as the demo
// owner unless args carry a token.
func (s *callServe) call(t *testing.T, term terminal, args ...string) callResult {
	t.Helper()
	wire := &wireLog{}
	term.http = &http.Client{Transport: wire}
	if term.in == nil {
		term.in = strings.NewReader("")
	}
	full := []string{"--data-dir", s.dataDir, "--database-url", s.dbURL}
	if !strings.Contains(strings.Join(args, " "), "--token") {
		full = append(full, "--user", accounts.DemoOwnerEmail)
	}
	var out, errOut strings.Builder
	code := callWith(context.Background(), append(full, args...), &out, &errOut, term)
	return callResult{code, out.String(), errOut.String(), wire}
}

// dataID is data.id of a tool's JSON answer.
func dataID(t *testing.T, out string) string {
	t.Helper()
	var doc struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Data.ID == "" {
		t.Fatalf("no data.id in %s", out)
	}
	return doc.Data.ID
}

// TestCall drives `kobana-mcp call` against the three products on each
// engine: it lists, reads and calls read tools; runs a destructive tool of
// each product confirmed by --yes (asked once, run once), declined by --no
// or on the terminal, and refused for want of a terminal (nothing done,
// exit 3); and shows the server's words for a foreign token.
func TestCall(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s := startCallServe(t, engine)
			tty := func(input string) terminal { return terminal{in: strings.NewReader(input), interactive: true} }

			t.Run("tools of every product", func(t *testing.T) {
				t.Parallel()
				for product, want := range map[string]string{
					"inbox":   "workspaces_delete",
					"dunning": "dunning_plans_delete",
					"kadu":    "kadu_tasks_delete",
				} {
					r := s.call(t, terminal{}, "--product", product, "tools")
					line := ""
					for _, l := range strings.Split(r.out, "\n") {
						if strings.HasPrefix(l, want+" ") {
							line = l
						}
					}
					if r.code != 0 || !strings.Contains(line, "destructive") || !strings.Contains(r.out, "read-only") {
						t.Fatalf("%s tools: %d %q\n%s%s", product, r.code, line, r.out, r.errOut)
					}
					if r.wire.count("tools/list") != 1 {
						t.Fatalf("%s: %v", product, r.wire.methods)
					}
				}
			})

			t.Run("read tools, resources and prompts", func(t *testing.T) {
				t.Parallel()
				r := s.call(t, terminal{}, "--product", "dunning", "tool", "dunning_me")
				if r.code != 0 || !strings.Contains(r.out, accounts.DemoOwnerEmail) {
					t.Fatalf("dunning_me: %d %s%s", r.code, r.out, r.errOut)
				}
				r = s.call(t, terminal{}, "--product", "inbox", "tool", "workspaces_list", "limit=1")
				if r.code != 0 || !strings.Contains(r.out, `"data": [`) {
					t.Fatalf("workspaces_list: %d %s%s", r.code, r.out, r.errOut)
				}
				r = s.call(t, terminal{}, "--product", "inbox", "resources")
				if r.code != 0 || !strings.Contains(r.out, "kobana://inbox/workspace ") || !strings.Contains(r.out, "kobana://inbox/emails/{id}") {
					t.Fatalf("resources: %d %s%s", r.code, r.out, r.errOut)
				}
				r = s.call(t, terminal{}, "--product", "inbox", "read", "kobana://inbox/workspace")
				if r.code != 0 || !strings.Contains(r.out, `"label"`) {
					t.Fatalf("read: %d %s%s", r.code, r.out, r.errOut)
				}
				r = s.call(t, terminal{}, "--product", "inbox", "read", "kobana://inbox/nothing")
				if r.code != 1 || !strings.Contains(r.errOut, "JSON-RPC error -32602") {
					t.Fatalf("read of nothing: %d %s%s", r.code, r.out, r.errOut)
				}
				r = s.call(t, terminal{}, "--product", "inbox", "prompts")
				if r.code != 0 || !strings.Contains(r.out, "investigate_webhook_failures") || !strings.Contains(r.out, "webhook_id*") {
					t.Fatalf("prompts: %d %s%s", r.code, r.out, r.errOut)
				}
				r = s.call(t, terminal{}, "--product", "inbox", "prompt", "setup_inbox", "label=Fornecedores", "agent_label=Boletos", "webhook_url=https://hooks.example.com/in")
				if r.code != 0 || !strings.Contains(r.out, "[user]") || !strings.Contains(r.out, "Fornecedores") {
					t.Fatalf("prompt: %d %s%s", r.code, r.out, r.errOut)
				}
				r = s.call(t, terminal{}, "--product", "kadu", "info")
				if r.code != 0 || !strings.Contains(r.out, "speaks:       2026-07-28") || r.wire.count("server/discover") != 1 {
					t.Fatalf("info: %d %s%s", r.code, r.out, r.errOut)
				}
			})

			// One destructive tool of each product: made, declined (by --no,
			// on the terminal, and for want of one: still there), then
			// confirmed with --yes (asked once, answered once: gone).
			for _, c := range []struct {
				product, create          string
				fields                   []string
				del, idArg, get, message string
			}{
				{"inbox", "workspaces_create", []string{"label=CLI"}, "workspaces_delete", "id", "workspaces_get", "Delete workspace 'CLI'"},
				{"dunning", "dunning_plans_create", []string{"name=CLI plan"}, "dunning_plans_delete", "id", "dunning_plans_get", "CLI plan"},
				{"kadu", "kadu_tasks_create", []string{"name=CLI task", "mode=agent", "instructions=Say hello."}, "kadu_tasks_delete", "task_id", "kadu_tasks_get", "CLI task"},
			} {
				t.Run(c.del, func(t *testing.T) {
					t.Parallel()
					r := s.call(t, terminal{}, append([]string{"--product", c.product, "tool", c.create}, c.fields...)...)
					if r.code != 0 {
						t.Fatalf("%s: %d %s%s", c.create, r.code, r.out, r.errOut)
					}
					id := dataID(t, r.out)
					target := c.idArg + "=" + id
					exists := func(want bool) {
						t.Helper()
						r := s.call(t, terminal{}, "--product", c.product, "tool", c.get, target)
						if (r.code == 0) != want {
							t.Fatalf("%s after: %d %s%s", c.get, r.code, r.out, r.errOut)
						}
					}
					for _, d := range []struct {
						name string
						term terminal
						args []string
						says string
					}{
						{"--no", terminal{}, []string{"--no"}, "Declined (--no)."},
						{"n on the terminal", tty("n\n"), nil, "? [y/N] "},
						{"end of input on the terminal", tty(""), nil, "? [y/N] "},
						{"no terminal", terminal{}, nil, "stdin is not a terminal: run again with --yes"},
					} {
						r := s.call(t, d.term, append(d.args, "--product", c.product, "tool", c.del, target)...)
						if r.code != exitNotConfirmed || !strings.Contains(r.errOut, c.message) || !strings.Contains(r.errOut, d.says) {
							t.Fatalf("%s: %d %s%s", d.name, r.code, r.out, r.errOut)
						}
						exists(true)
					}
					r = s.call(t, terminal{}, "--yes", "--product", c.product, "tool", c.del, target)
					if r.code != 0 || !strings.Contains(r.errOut, c.message) || r.wire.count("tools/call") != 1 || r.wire.count("tools/call+answer") != 1 {
						t.Fatalf("--yes: %d %v %s%s", r.code, r.wire.methods, r.out, r.errOut)
					}
					exists(false)
				})
			}

			t.Run("y on the terminal", func(t *testing.T) {
				t.Parallel()
				r := s.call(t, terminal{}, "--product", "inbox", "tool", "workspaces_create", `{"label":"Typed yes","external_id":"typed-yes"}`)
				if r.code != 0 {
					t.Fatalf("create: %d %s%s", r.code, r.out, r.errOut)
				}
				r = s.call(t, tty("y\n"), "--product", "inbox", "tool", "workspaces_delete", "id=typed-yes")
				if r.code != 0 || !strings.Contains(r.errOut, "Delete workspace 'Typed yes' (external id typed-yes)?") || !strings.Contains(r.errOut, "Yes, do it? [y/N] ") {
					t.Fatalf("y: %d %s%s", r.code, r.out, r.errOut)
				}
				// Deleted once: a second run finds nothing to ask about.
				r = s.call(t, tty("y\n"), "--product", "inbox", "tool", "workspaces_delete", "id=typed-yes")
				if r.code != 1 || !strings.Contains(r.out, "not_found") || strings.Contains(r.errOut, "[y/N]") || r.wire.count("tools/call+answer") != 0 {
					t.Fatalf("again: %d %v %s%s", r.code, r.wire.methods, r.out, r.errOut)
				}
			})

			t.Run("tokens", func(t *testing.T) {
				t.Parallel()
				var tok strings.Builder
				if code := run(context.Background(), []string{"token", "--data-dir", s.dataDir, "--database-url", s.dbURL, "--product", "dunning", "--user", accounts.DemoOwnerEmail}, &tok, io.Discard); code != 0 {
					t.Fatal("token")
				}
				r := s.call(t, terminal{}, "--product", "inbox", "--token", strings.TrimSpace(tok.String()), "tools")
				if r.code != 1 || !strings.Contains(r.errOut, "HTTP 401 Unauthorized: invalid_token: this token was issued by Kobana Dunning") {
					t.Fatalf("a Dunning token on the Inbox: %d %s%s", r.code, r.out, r.errOut)
				}
				// The same token works where it belongs, through --token-file.
				file := filepath.Join(t.TempDir(), "token")
				if err := os.WriteFile(file, []byte(tok.String()), 0o600); err != nil {
					t.Fatal(err)
				}
				if r := s.call(t, terminal{}, "--product", "dunning", "--token-file", file, "tools"); r.code != 0 {
					t.Fatalf("--token-file: %d %s", r.code, r.errOut)
				}
				var out, errOut strings.Builder
				code := callWith(context.Background(), []string{"--data-dir", s.dataDir, "--product", "kadu", "tools"}, &out, &errOut, terminal{in: strings.NewReader("")})
				if code != 1 || !strings.Contains(errOut.String(), "an access token is required") || !strings.Contains(errOut.String(), "add --user EMAIL") {
					t.Fatalf("no token: %d %s", code, errOut.String())
				}
			})
		})
	}
}

// TestCallUsage: what call refuses before it sends anything.
func TestCallUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"tools"}, "which endpoint?"},
		{[]string{"--product", "inbox", "--url", "http://x/mcp", "tools"}, "not both"},
		{[]string{"--product", "billing", "tools"}, `unknown product "billing"`},
		{[]string{"--yes", "--no", "--product", "inbox", "tools"}, "contradict"},
		{[]string{"--product", "inbox", "dance"}, `unknown verb "dance"`},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--user", "a@b.c", "tools"}, "with --url give --token"},
	} {
		var out, errOut strings.Builder
		if code := callWith(context.Background(), append([]string{"--data-dir", dir}, c.args...), &out, &errOut, terminal{in: strings.NewReader("")}); code != 2 || !strings.Contains(errOut.String(), c.says) {
			t.Errorf("%v: %d %s", c.args, code, errOut.String())
		}
	}
}

// TestToolArguments: key=value takes the schema's type.
func TestToolArguments(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"limit":{"type":"integer"},"on":{"type":["boolean","null"]},"tags":{"type":"array"}}}`)
	got, err := toolArguments(schema, []string{"id=123", "limit=5", "on=true", "tags=[\"a\"]", "other=7", "free=text"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if string(b) != `{"free":"text","id":"123","limit":5,"on":true,"other":7,"tags":["a"]}` {
		t.Fatalf("%s", b)
	}
	if _, err := toolArguments(schema, []string{"limit=five"}); err == nil || !strings.Contains(err.Error(), "limit is a integer") {
		t.Fatalf("a bad integer: %v", err)
	}
	if _, err := toolArguments(schema, []string{"id"}); err == nil {
		t.Fatal("a bare word")
	}
	if got, err := toolArguments(schema, []string{`{"id":1}`}); err != nil || got["id"] != float64(1) {
		t.Fatalf("JSON: %v %v", got, err)
	}
}
