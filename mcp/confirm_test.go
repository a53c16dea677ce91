package mcp_test

// Confirmation of destructive tools by the server (docs/decisions.md, "Confirmation",
// mcp-protocol §5.4-§5.6): the matrix of eras and declared capabilities,
// and every way a confirmation can be misused — tampered, expired, foreign,
// for other arguments, replayed, raced.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
)

// shelf is the test catalog's data: items a destructive tool deletes, and
// counters of what ran.
type shelf struct {
	mu      sync.Mutex
	items   map[string]string
	runs    atomic.Int32 // handler runs of delete tools
	lookups atomic.Int32 // Confirm calls
	// used is the "database" of a tool that consumes its confirmation in
	// its own transaction.
	used map[string]bool
	// slow makes delete handlers wait, to widen race windows.
	slow time.Duration
}

func newShelf() *shelf {
	return &shelf{items: map[string]string{"1": "Billing", "2": "Sales"}, used: map[string]bool{}}
}

const wantConfirmMessage = "Delete item 'Billing' (id 1)? This cannot be undone."

func (s *shelf) catalog() mcp.Catalog {
	idSchema := objectSchema([]string{"id"}, map[string]*jsonschema.Schema{"id": {Type: "string"}})
	del := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ ID string }
		_ = json.Unmarshal(req.Arguments, &args)
		if s.slow > 0 {
			time.Sleep(s.slow)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.items[args.ID]; !ok {
			return mcp.ErrorResult(`{"error":{"code":"not_found","message":"item not found"}}`), nil
		}
		s.runs.Add(1)
		return mcp.TextResult("deleted " + args.ID), nil
	}
	return mcp.Catalog{Tools: []mcp.Tool{
		{
			Name: "delete_item", Title: "Delete an item", Description: "Deletes an item.",
			InputSchema: idSchema, Annotations: annotations(false, true, true),
			Confirm: func(ctx context.Context, req *mcp.CallToolRequest) (string, *mcp.CallToolResult, error) {
				s.lookups.Add(1)
				var args struct{ ID string }
				_ = json.Unmarshal(req.Arguments, &args)
				s.mu.Lock()
				name, ok := s.items[args.ID]
				s.mu.Unlock()
				if !ok {
					return "", mcp.ErrorResult(`{"error":{"code":"not_found","message":"item not found"}}`), nil
				}
				return fmt.Sprintf("Delete item '%s' (id %s)? This cannot be undone.", name, args.ID), nil, nil
			},
			Handler: del,
		},
		{
			// No Confirm: the generic message; no annotations at all: the
			// spec's defaults make it destructive.
			Name: "purge", Description: "Purges everything.",
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				s.runs.Add(1)
				return mcp.TextResult("purged"), nil
			},
		},
		{
			// Consumes its confirmation in its own "transaction".
			Name: "delete_item_tx", Description: "Deletes an item, consuming the confirmation itself.",
			InputSchema: idSchema, Annotations: annotations(false, true, true), ConsumesConfirmation: true,
			Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				c := mcp.ConfirmationFrom(ctx)
				if c == nil {
					return nil, errors.New("no confirmation in the context")
				}
				if s.slow > 0 {
					time.Sleep(s.slow)
				}
				s.mu.Lock()
				defer s.mu.Unlock()
				if s.used[c.Nonce] {
					c.Replayed()
					return mcp.ErrorResult("replayed"), nil
				}
				s.used[c.Nonce] = true
				s.runs.Add(1)
				c.Spent()
				return mcp.TextResult("deleted in tx"), nil
			},
		},
		{
			Name: "rename_item", Description: "Renames an item (not destructive).",
			InputSchema: idSchema, Annotations: annotations(false, false, true),
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("renamed"), nil
			},
		},
		{
			Name: "read_item", Description: "Reads an item.",
			InputSchema: idSchema, Annotations: annotations(true, false, true),
			Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("read"), nil
			},
		},
	}}
}

type confirmServer struct {
	h     *mcp.Handler
	shelf *shelf
	clock *fakeClock
}

func newConfirmServer(t *testing.T, configure func(*mcp.Options)) *confirmServer {
	t.Helper()
	clock := newClock()
	sealer, err := mcp.NewStateSealer([][]byte{testSecret}, mcp.StateOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	s := newShelf()
	opts := mcp.Options{Name: "confirm-server", Version: "1.0.0", Authorizer: headerAuth{}, States: sealer}
	if configure != nil {
		configure(&opts)
	}
	return &confirmServer{h: mcp.MustNewHandler(opts, s.catalog()), shelf: s, clock: clock}
}

// cc is one tools/call in any era.
type cc struct {
	version        string // default 2026-07-28
	tool           string // default delete_item
	arguments      string // default {"id":"1"}
	caps           string // default {"elicitation":{}}; in the 2025 eras sent in initialize
	principal      string // default alice
	requestState   any
	inputResponses string
}

func (c cc) defaults() cc {
	if c.version == "" {
		c.version = mcp.Version20260728
	}
	if c.tool == "" {
		c.tool = "delete_item"
	}
	if c.arguments == "" {
		c.arguments = `{"id":"1"}`
	}
	if c.caps == "" {
		c.caps = `{"elicitation":{}}`
	}
	if c.principal == "" {
		c.principal = "alice"
	}
	return c
}

func (c cc) do(t *testing.T, h http.Handler) mrtrReply {
	t.Helper()
	c = c.defaults()
	modern := c.version == mcp.Version20260728
	if !modern {
		// A 2025 client declares its capabilities once, in initialize;
		// the stateless server never sees them again.
		init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"t","version":"1"}}}`, c.version, c.caps)
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(init))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Principal", c.principal)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), c.version) {
			t.Fatalf("initialize %s: %d %s", c.version, rec.Code, rec.Body)
		}
	}
	params := map[string]json.RawMessage{"name": mustJSON(t, c.tool), "arguments": json.RawMessage(c.arguments)}
	if modern {
		params["_meta"] = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + c.caps + `}`)
	}
	if c.requestState != nil {
		params["requestState"] = mustJSON(t, c.requestState)
	}
	if c.inputResponses != "" {
		params["inputResponses"] = json.RawMessage(c.inputResponses)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
	r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Principal", c.principal)
	r.Header.Set("MCP-Protocol-Version", c.version)
	if modern {
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", c.tool)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	rep := mrtrReply{status: rec.Code, header: rec.Result().Header, body: rec.Body.Bytes()}
	if err := json.Unmarshal(rep.body, &rep.msg); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, rep.body)
	}
	return rep
}

// ask makes the first call and returns its requestState, checking the one
// form it asks.
func (c cc) ask(t *testing.T, h http.Handler, wantMessage string) string {
	t.Helper()
	rep := c.do(t, h)
	if rep.status != http.StatusOK || rep.msg.Result["resultType"] != "input_required" {
		t.Fatalf("want input_required, got %d:\n%s", rep.status, rep.body)
	}
	want := map[string]any{
		"confirm": map[string]any{
			"method": "elicitation/create",
			"params": map[string]any{
				"mode":    "form",
				"message": wantMessage,
				"requestedSchema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"confirm": map[string]any{"type": "boolean", "title": "Yes, do it", "default": false},
					},
					"required": []any{"confirm"},
				},
			},
		},
	}
	if !reflect.DeepEqual(rep.msg.Result["inputRequests"], want) {
		got, _ := json.Marshal(rep.msg.Result["inputRequests"])
		t.Fatalf("inputRequests =\n%s\nwant the message %q", got, wantMessage)
	}
	for _, k := range []string{"content", "isError", "ttlMs", "cacheScope"} {
		if _, ok := rep.msg.Result[k]; ok {
			t.Errorf("input_required carries %q", k)
		}
	}
	state, _ := rep.msg.Result["requestState"].(string)
	if state == "" {
		t.Fatalf("no requestState:\n%s", rep.body)
	}
	return state
}

// wantRefused checks the confirmation_required answer of a client that
// cannot confirm.
func wantRefused(t *testing.T, rep mrtrReply, version string) {
	t.Helper()
	if rep.status != http.StatusOK || rep.msg.Error != nil {
		t.Fatalf("want 200 with a result, got %d:\n%s", rep.status, rep.body)
	}
	if rep.msg.Result["isError"] != true {
		t.Fatalf("isError = %v:\n%s", rep.msg.Result["isError"], rep.body)
	}
	if _, ok := rep.msg.Result["requestState"]; ok {
		t.Errorf("a refusal carries a requestState:\n%s", rep.body)
	}
	_, hasType := rep.msg.Result["resultType"]
	if hasType != (version == mcp.Version20260728) {
		t.Errorf("resultType present = %v in %s:\n%s", hasType, version, rep.body)
	}
	content, _ := rep.msg.Result["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content = %v", content)
	}
	var body struct {
		Error struct{ Code, Message string }
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	if err := json.Unmarshal([]byte(text), &body); err != nil {
		t.Fatalf("text is not JSON: %q", text)
	}
	if body.Error.Code != "confirmation_required" {
		t.Errorf("code = %q, want confirmation_required", body.Error.Code)
	}
	for _, part := range []string{"cannot confirm destructive tools", "2026-07-28 with form elicitation", "Retrying will not help", "Nothing was done"} {
		if !strings.Contains(body.Error.Message, part) {
			t.Errorf("message %q lacks %q", body.Error.Message, part)
		}
	}
}

func (s *confirmServer) wantRuns(t *testing.T, n int32) {
	t.Helper()
	if got := s.shelf.runs.Load(); got != n {
		t.Errorf("the tool ran %d times, want %d", got, n)
	}
}

// TestConfirmMatrix: every era and capability combination. Only a 2026
// client that declared form elicitation (mcp-protocol §5.4: {} or with
// "form"; {"url":{}} alone is URL only) is asked; all others are refused
// with confirmation_required. Nothing runs on a first call.
func TestConfirmMatrix(t *testing.T) {
	t.Parallel()
	capsList := []string{
		`{}`,
		`{"elicitation":{}}`,
		`{"elicitation":{"form":{}}}`,
		`{"elicitation":{"url":{}}}`,
		`{"elicitation":{"form":{},"url":{}}}`,
	}
	canForm := map[string]bool{capsList[1]: true, capsList[2]: true, capsList[4]: true}
	for _, version := range []string{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		for _, caps := range capsList {
			t.Run(version+" "+caps, func(t *testing.T) {
				s := newConfirmServer(t, nil)
				call := cc{version: version, caps: caps}
				if version == mcp.Version20260728 && canForm[caps] {
					state := call.ask(t, s.h, wantConfirmMessage)
					s.wantRuns(t, 0)
					call.requestState, call.inputResponses = state, accept
					wantComplete(t, call.do(t, s.h), "deleted 1", false)
					s.wantRuns(t, 1)
					// The same confirmation again: nothing runs.
					wantError(t, call.do(t, s.h), http.StatusOK, -32602, "already used")
					s.wantRuns(t, 1)
					return
				}
				wantRefused(t, call.do(t, s.h), version)
				// Nor does an answer the client invents make it run.
				call.inputResponses = accept
				wantRefused(t, call.do(t, s.h), version)
				s.wantRuns(t, 0)
				if n := s.shelf.lookups.Load(); n != 0 {
					t.Errorf("Refuse looked the target up %d times", n)
				}
			})
		}
	}
}

// Tools that are not destructive run at once for every client.
func TestConfirmOnlyDestructiveTools(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	for _, version := range []string{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		for _, tool := range []string{"rename_item", "read_item"} {
			for _, caps := range []string{`{}`, `{"elicitation":{}}`} {
				rep := cc{version: version, tool: tool, caps: caps}.do(t, s.h)
				if rep.msg.Error != nil || rep.msg.Result["isError"] == true || rep.msg.Result["resultType"] == "input_required" {
					t.Errorf("%s %s %s:\n%s", version, tool, caps, rep.body)
				}
			}
		}
	}
}

// The destructive tools stay listed, with their annotations.
func TestConfirmToolsStayListed(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	for _, version := range []string{mcp.Version20250618, mcp.Version20260728} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
		if version == mcp.Version20260728 {
			body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		}
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("MCP-Protocol-Version", version)
		r.Header.Set("Mcp-Method", "tools/list")
		rec := httptest.NewRecorder()
		s.h.ServeHTTP(rec, r)
		if !strings.Contains(rec.Body.String(), `"name":"delete_item"`) || !strings.Contains(rec.Body.String(), `"destructiveHint":true`) {
			t.Errorf("%s: delete_item not listed with its annotations:\n%s", version, rec.Body)
		}
	}
}

func TestConfirmDeclineCancelUntickedRunNothing(t *testing.T) {
	t.Parallel()
	for name, answer := range map[string]string{
		"decline":     `{"confirm":{"action":"decline"}}`,
		"cancel":      `{"confirm":{"action":"cancel"}}`,
		"unticked":    `{"confirm":{"action":"accept","content":{"confirm":false}}}`,
		"no content":  `{"confirm":{"action":"accept"}}`,
		"string true": `{"confirm":{"action":"accept","content":{"confirm":"true"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := newConfirmServer(t, nil)
			state := cc{}.ask(t, s.h, wantConfirmMessage)
			rep := cc{requestState: state, inputResponses: answer}.do(t, s.h)
			wantComplete(t, rep, "Nothing was done", true)
			wantComplete(t, rep, wantConfirmMessage, true)
			s.wantRuns(t, 0)
			// The state is spent: it cannot be accepted afterwards.
			wantError(t, cc{requestState: state, inputResponses: accept}.do(t, s.h), http.StatusOK, -32602, "already used")
			s.wantRuns(t, 0)
		})
	}
}

// A retry that carries the state but no answer is asked again, with the
// message sealed in the state (no second lookup) and a fresh state; the
// state it replaces is spent.
func TestConfirmRetryWithoutAnswerAsksAgain(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	state := cc{}.ask(t, s.h, wantConfirmMessage)
	again := cc{requestState: state}.ask(t, s.h, wantConfirmMessage)
	if again == state {
		t.Error("the re-prompt reused the state")
	}
	// Answers to questions that were not asked are ignored.
	again2 := cc{requestState: again, inputResponses: `{"other":{"action":"accept","content":{"confirm":true}}}`}.ask(t, s.h, wantConfirmMessage)
	if n := s.shelf.lookups.Load(); n != 1 {
		t.Errorf("looked the target up %d times, want 1", n)
	}
	wantComplete(t, cc{requestState: again2, inputResponses: accept}.do(t, s.h), "deleted 1", false)
	s.wantRuns(t, 1)
	// The states it replaced are spent: they cannot run the call again.
	for _, old := range []string{state, again} {
		wantError(t, cc{requestState: old, inputResponses: accept}.do(t, s.h), http.StatusOK, -32602, "already used")
	}
	s.wantRuns(t, 1)
}

// An answer without a state (the client skipping the question) is asked.
func TestConfirmAnswerWithoutStateAsks(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	cc{inputResponses: accept}.ask(t, s.h, wantConfirmMessage)
	s.wantRuns(t, 0)
}

func TestConfirmTamperedState(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	state := cc{}.ask(t, s.h, wantConfirmMessage)
	b := []byte(state)
	b[len(b)/2] ^= 1
	for name, forged := range map[string]any{
		"suffix":  state + "-TAMPERED",
		"flipped": string(b),
		"empty":   "",
		"number":  42,
		"garbage": "not-a-state",
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, cc{requestState: forged, inputResponses: accept}.do(t, s.h), http.StatusOK, -32602, "requestState")
		})
	}
	// Another deployment's secret.
	other := mcp.MustNewHandler(mcp.Options{Name: "x", Version: "1", Authorizer: headerAuth{},
		States: mustSealer(t, []byte("another secret of at least 32 bytes!"), s.clock)}, s.shelf.catalog())
	wantError(t, cc{requestState: state, inputResponses: accept}.do(t, other), http.StatusOK, -32602, "requestState")
	s.wantRuns(t, 0)
	// The genuine state still works.
	wantComplete(t, cc{requestState: state, inputResponses: accept}.do(t, s.h), "deleted 1", false)
}

func mustSealer(t *testing.T, secret []byte, clock *fakeClock) *mcp.StateSealer {
	t.Helper()
	s, err := mcp.NewStateSealer([][]byte{secret}, mcp.StateOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConfirmExpiredState(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	state := cc{}.ask(t, s.h, wantConfirmMessage)
	s.clock.Advance(5*time.Minute + time.Second)
	wantError(t, cc{requestState: state, inputResponses: accept}.do(t, s.h), http.StatusOK, -32602, "expired")
	s.wantRuns(t, 0)

	state = cc{}.ask(t, s.h, wantConfirmMessage)
	s.clock.Advance(5*time.Minute - time.Second)
	wantComplete(t, cc{requestState: state, inputResponses: accept}.do(t, s.h), "deleted 1", false)
	s.wantRuns(t, 1)
}

func TestConfirmForeignPrincipal(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	state := cc{principal: "alice"}.ask(t, s.h, wantConfirmMessage)
	wantError(t, cc{principal: "mallory", requestState: state, inputResponses: accept}.do(t, s.h), http.StatusOK, -32602, "another caller")
	s.wantRuns(t, 0)
	wantComplete(t, cc{principal: "alice", requestState: state, inputResponses: accept}.do(t, s.h), "deleted 1", false)
}

func TestConfirmOtherArgumentsOrTool(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	state := cc{arguments: `{"id":"1"}`}.ask(t, s.h, wantConfirmMessage)
	wantError(t, cc{arguments: `{"id":"2"}`, requestState: state, inputResponses: accept}.do(t, s.h), http.StatusOK, -32602, "other arguments")
	wantError(t, cc{arguments: `{"id":"1","extra":true}`, requestState: state, inputResponses: accept}.do(t, s.h), http.StatusOK, -32602, "other arguments")
	wantError(t, cc{tool: "delete_item_tx", requestState: state, inputResponses: accept}.do(t, s.h), http.StatusOK, -32602, "another request")
	s.wantRuns(t, 0)
	// Same arguments in another spelling are the same call.
	wantComplete(t, cc{arguments: "{ \"id\" : \"1\" }", requestState: state, inputResponses: accept}.do(t, s.h), "deleted 1", false)
}

// A target that does not exist is answered at once: nothing is asked.
func TestConfirmMissingTarget(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	rep := cc{arguments: `{"id":"404"}`}.do(t, s.h)
	wantComplete(t, rep, "not_found", true)
	s.wantRuns(t, 0)
}

// A tool without Confirm is asked with a generic message naming it and its
// arguments.
func TestConfirmGenericMessage(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	state := cc{tool: "purge", arguments: `{}`}.ask(t, s.h,
		"Run purge with arguments {}? It is marked destructive: it may delete, change or send something, and cannot be undone.")
	wantComplete(t, cc{tool: "purge", arguments: `{}`, requestState: state, inputResponses: accept}.do(t, s.h), "purged", false)
}

// Two (and more) concurrent accepted retries of one confirmation: exactly
// one runs, the others answer -32602. Both ways of consuming: by the
// server before the tool runs, and by the tool in its own transaction.
func TestConfirmConcurrentRetriesRunOnce(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"delete_item", "delete_item_tx"} {
		t.Run(tool, func(t *testing.T) {
			s := newConfirmServer(t, nil)
			s.shelf.slow = 20 * time.Millisecond
			msg := wantConfirmMessage
			if tool == "delete_item_tx" {
				msg = `Run delete_item_tx with arguments {"id":"1"}? It is marked destructive: it may delete, change or send something, and cannot be undone.`
			}
			state := cc{tool: tool}.ask(t, s.h, msg)
			const n = 8
			reps := make([]mrtrReply, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					reps[i] = cc{tool: tool, requestState: state, inputResponses: accept}.do(t, s.h)
				})
			}
			close(start)
			wg.Wait()
			ok, used := 0, 0
			for _, rep := range reps {
				switch {
				case rep.msg.Error != nil && rep.msg.Error.Code == -32602 && strings.Contains(rep.msg.Error.Message, "already used"):
					used++
				case rep.msg.Error == nil && rep.msg.Result["isError"] != true:
					ok++
				default:
					t.Errorf("unexpected answer:\n%s", rep.body)
				}
			}
			if ok != 1 || used != n-1 {
				t.Errorf("%d ran and %d were refused, want 1 and %d", ok, used, n-1)
			}
			s.wantRuns(t, 1)
		})
	}
}

// A tool that consumes its confirmation itself but returned before doing
// so (it failed early): the server consumes it afterwards, so the state
// cannot run anything later.
func TestConfirmUnreportedNonceIsConsumedAfter(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, nil)
	cat := s.shelf.catalog()
	nonces := mcp.NewMemoryNonceStore(nil) // the table the tool shares with the server
	ran := 0
	cat.Tools = append(cat.Tools, mcp.Tool{
		Name: "fails_early", Description: "Fails before its transaction the first time.", Annotations: annotations(false, true, false),
		ConsumesConfirmation: true,
		Handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran++
			if ran == 1 {
				return mcp.ErrorResult("validation failed"), nil
			}
			c := mcp.ConfirmationFrom(ctx)
			if err := nonces.Consume(ctx, c.Nonce, c.Expires); errors.Is(err, mcp.ErrNonceUsed) {
				c.Replayed()
				return mcp.ErrorResult("replayed"), nil
			}
			return mcp.TextResult("ran"), nil
		},
	})
	h := mcp.MustNewHandler(mcp.Options{Name: "x", Version: "1", Authorizer: headerAuth{}, States: mustSealer(t, testSecret, s.clock),
		Confirm: mcp.ConfirmOptions{Nonces: nonces}}, cat)
	msg := "Run fails_early with arguments {}? It is marked destructive: it may delete, change or send something, and cannot be undone."
	state := cc{tool: "fails_early", arguments: `{}`}.ask(t, h, msg)
	wantComplete(t, cc{tool: "fails_early", arguments: `{}`, requestState: state, inputResponses: accept}.do(t, h), "validation failed", true)
	wantError(t, cc{tool: "fails_early", arguments: `{}`, requestState: state, inputResponses: accept}.do(t, h), http.StatusOK, -32602, "already used")
	if ran != 2 {
		t.Errorf("the handler was called %d times, want 2", ran)
	}
}

type failingNonces struct{}

func (failingNonces) Consume(context.Context, string, time.Time) error {
	return errors.New("database down")
}

// When the nonce store fails, nothing runs and the caller sees -32603.
func TestConfirmNonceStoreFailure(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, func(o *mcp.Options) { o.Confirm.Nonces = failingNonces{} })
	state := cc{}.ask(t, s.h, wantConfirmMessage)
	wantError(t, cc{requestState: state, inputResponses: accept}.do(t, s.h), http.StatusOK, -32603, "")
	s.wantRuns(t, 0)
}

// approvalPolicy stands in for an approval-link policy: a 2026 client that
// declared URL elicitation gets a link as an input_required URL request,
// and its retry runs the call once the approval was granted.
type approvalPolicy struct {
	mu       sync.Mutex
	granted  bool
	calls    []*mcp.UnconfirmableCall
	messages []string
}

func (p *approvalPolicy) Unconfirmable(ctx context.Context, call *mcp.UnconfirmableCall) (mcp.Decision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, call)
	msg, res, err := call.Describe()
	if err != nil || res != nil {
		return mcp.Decision{Result: res}, err
	}
	p.messages = append(p.messages, msg)
	if call.Request.State != nil && p.granted {
		return mcp.Decision{Run: true}, nil
	}
	if call.Request.Era == mcp.EraModern && call.Request.Capabilities.ElicitURL() {
		return mcp.Decision{Result: mcp.InputRequiredResult(&mcp.InputRequired{
			Requests: map[string]mcp.InputRequest{"approve": mcp.ElicitURL(msg, "https://example.com/approvals/1")},
		})}, nil
	}
	return mcp.Decision{Result: mcp.TextResult(`{"approval_url":"https://example.com/approvals/1"}`)}, nil
}

func TestConfirmPolicyHook(t *testing.T) {
	t.Parallel()
	p := &approvalPolicy{}
	s := newConfirmServer(t, func(o *mcp.Options) { o.Confirm.Unconfirmable = p })

	// A 2025 client: the policy's normal result.
	rep := cc{version: mcp.Version20250618}.do(t, s.h)
	if rep.msg.Result["isError"] == true || !strings.Contains(string(rep.body), "approval_url") {
		t.Fatalf("2025:\n%s", rep.body)
	}
	if p.calls[0].Reason != "it speaks MCP 2025-06-18" || p.calls[0].Principal != "test-issuer|alice" || p.calls[0].Tool.Name != "delete_item" {
		t.Errorf("call = %+v", p.calls[0])
	}
	if p.messages[0] != wantConfirmMessage {
		t.Errorf("Describe = %q", p.messages[0])
	}

	// A 2026 client with URL elicitation only: a URL request; its retry
	// runs once the approval is granted, and not before.
	url := cc{caps: `{"elicitation":{"url":{}}}`}
	rep = url.do(t, s.h)
	if rep.msg.Result["resultType"] != "input_required" || !strings.Contains(string(rep.body), `"mode":"url"`) {
		t.Fatalf("url:\n%s", rep.body)
	}
	url.requestState = rep.msg.Result["requestState"]
	url.inputResponses = `{"approve":{"action":"accept"}}`
	rep = url.do(t, s.h)
	if rep.msg.Result["resultType"] != "input_required" {
		t.Fatalf("before approval:\n%s", rep.body)
	}
	s.wantRuns(t, 0)
	p.granted = true
	url.requestState = rep.msg.Result["requestState"]
	wantComplete(t, url.do(t, s.h), "deleted 1", false)
	s.wantRuns(t, 1)

	// A missing target: Describe hands back the tool's answer.
	wantLegacyText(t, cc{version: mcp.Version20250618, arguments: `{"id":"404"}`}.do(t, s.h), "not_found", true)
}

// Disabled confirmation and tools that confirm themselves run as before.
func TestConfirmOptOuts(t *testing.T) {
	t.Parallel()
	s := newConfirmServer(t, func(o *mcp.Options) { o.Confirm.Disabled = true })
	wantLegacyText(t, cc{version: mcp.Version20250618}.do(t, s.h), "deleted 1", false)

	h := mcp.MustNewHandler(mcp.Options{Name: "x", Version: "1"}, mcp.Catalog{Tools: []mcp.Tool{{
		Name: "self", Description: "Confirms itself.", Annotations: annotations(false, true, false), ConfirmsItself: true,
		Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("ran"), nil
		},
	}}})
	wantComplete(t, cc{tool: "self", arguments: `{}`, caps: `{}`}.do(t, h), "ran", false)
}

func TestMemoryNonceStore(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	m := mcp.NewMemoryNonceStore(func() time.Time { return now })
	ctx := context.Background()
	if err := m.Consume(ctx, "a", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := m.Consume(ctx, "a", now.Add(time.Minute)); !errors.Is(err, mcp.ErrNonceUsed) {
		t.Fatalf("second consume: %v", err)
	}
	for i := range 2000 {
		if err := m.Consume(ctx, fmt.Sprint(i), now.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Consume(ctx, "a", now.Add(time.Minute)); !errors.Is(err, mcp.ErrNonceUsed) {
		t.Fatalf("a live nonce was purged: %v", err)
	}
}

// wantLegacyText checks a 2025 tool result: no resultType, one text block.
func wantLegacyText(t *testing.T, rep mrtrReply, text string, isError bool) {
	t.Helper()
	if rep.status != http.StatusOK || rep.msg.Error != nil {
		t.Fatalf("status %d, want 200 with a result:\n%s", rep.status, rep.body)
	}
	if _, ok := rep.msg.Result["resultType"]; ok {
		t.Errorf("2025 result carries resultType:\n%s", rep.body)
	}
	if got, _ := rep.msg.Result["isError"].(bool); got != isError {
		t.Errorf("isError = %v, want %v:\n%s", got, isError, rep.body)
	}
	if !strings.Contains(string(rep.body), text) {
		t.Errorf("answer lacks %q:\n%s", text, rep.body)
	}
}
