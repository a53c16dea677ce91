package mcp_test

// Multi-round-trip (input_required) behaviour of the destructive fixture tool
// delete_item. The requestState is random, so these are ordinary tests, not
// golden files. Sources: docs/decisions.md "Confirmation of destructive tools" (sealed state bound to
// principal, tool, argument hash, expiry; tampered / expired / foreign state
// → -32602); mcp-protocol §4.3 (no caching hints on input_required), §5.2-§5.5
// (shape, form capability, malformed inputResponses → -32602), §2.3 (-32021
// with data.requiredCapabilities as an object).

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
)

// headerAuth lets everyone in and names the principal after X-Principal, so a
// test can replay a state as somebody else.
type headerAuth struct{}

type principalKey struct{}

func (headerAuth) Authenticate(_ http.ResponseWriter, r *http.Request) (context.Context, bool) {
	return context.WithValue(r.Context(), principalKey{}, "test-issuer|"+r.Header.Get("X-Principal")), true
}
func (headerAuth) Access(context.Context, mcp.Requirement) mcp.Access { return mcp.Allowed }
func (headerAuth) InsufficientScope(w http.ResponseWriter, _ *http.Request, _ mcp.Requirement) {
	w.WriteHeader(http.StatusForbidden)
}
func (headerAuth) Principal(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// mrtrServer is the fixture handler with the header authorizer and a sealer
// on a fake clock.
func mrtrServer(t *testing.T, secret []byte, clock *fakeClock) *mcp.Handler {
	t.Helper()
	sealer, err := mcp.NewStateSealer([][]byte{secret}, mcp.StateOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	opts := goldenOptions()
	opts.Authorizer = headerAuth{}
	opts.States = sealer
	h, err := mcp.NewHandler(opts, goldenCatalog())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)}
}

// mrtrCall describes one tools/call in the 2026 era.
type mrtrCall struct {
	id             any
	tool           string
	arguments      string // raw JSON; "" for {"id":"1"}
	caps           string // raw JSON clientCapabilities; "" for form elicitation
	principal      string // "" for alice
	requestState   any    // string or other JSON value; nil to omit
	inputResponses string // raw JSON; "" to omit
	legacy         bool   // 2025-06-18 framing instead
}

type mrtrReply struct {
	status int
	header http.Header
	body   []byte
	msg    struct {
		ID     json.RawMessage `json:"id"`
		Result map[string]any  `json:"result"`
		Error  *struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
}

func (c mrtrCall) do(t *testing.T, h http.Handler) mrtrReply {
	t.Helper()
	if c.id == nil {
		c.id = 1
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
	params := map[string]json.RawMessage{
		"name":      mustJSON(t, c.tool),
		"arguments": json.RawMessage(c.arguments),
	}
	if !c.legacy {
		params["_meta"] = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + c.caps + `}`)
	}
	if c.requestState != nil {
		params["requestState"] = mustJSON(t, c.requestState)
	}
	if c.inputResponses != "" {
		params["inputResponses"] = json.RawMessage(c.inputResponses)
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "tools/call", "params": params})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Principal", c.principal)
	if c.legacy {
		r.Header.Set("MCP-Protocol-Version", "2025-06-18")
	} else {
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", c.tool)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	rep := mrtrReply{status: rec.Code, header: rec.Result().Header, body: rec.Body.Bytes()}
	if err := json.Unmarshal(rep.body, &rep.msg); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, rep.body)
	}
	if v := headerValues(rep.header, "Mcp-Session-Id"); len(v) > 0 {
		t.Errorf("Mcp-Session-Id present: %q", v)
	}
	if v := headerValues(rep.header, "Cache-Control"); len(v) != 1 || v[0] != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", v)
	}
	return rep
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstCall runs the first tools/call and returns its requestState.
func firstCall(t *testing.T, h http.Handler, c mrtrCall) string {
	t.Helper()
	rep := c.do(t, h)
	if rep.status != http.StatusOK || rep.msg.Result["resultType"] != "input_required" {
		t.Fatalf("first call: status %d, want 200 input_required:\n%s", rep.status, rep.body)
	}
	state, _ := rep.msg.Result["requestState"].(string)
	if state == "" {
		t.Fatalf("first call: no requestState:\n%s", rep.body)
	}
	return state
}

const accept = `{"confirm":{"action":"accept","content":{"confirm":true}}}`

func wantComplete(t *testing.T, rep mrtrReply, text string, isError bool) {
	t.Helper()
	if rep.status != http.StatusOK || rep.msg.Error != nil {
		t.Fatalf("status %d, want 200 with a result:\n%s", rep.status, rep.body)
	}
	if got := rep.msg.Result["resultType"]; got != "complete" {
		t.Errorf("resultType = %v, want complete:\n%s", got, rep.body)
	}
	if got, _ := rep.msg.Result["isError"].(bool); got != isError {
		t.Errorf("isError = %v, want %v:\n%s", got, isError, rep.body)
	}
	content, _ := rep.msg.Result["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content = %v, want one block", content)
	}
	if got := content[0].(map[string]any)["text"]; !strings.Contains(got.(string), text) {
		t.Errorf("text = %q, want it to contain %q", got, text)
	}
}

func wantError(t *testing.T, rep mrtrReply, status, code int, msgPart string) {
	t.Helper()
	if rep.status != status || rep.msg.Error == nil || rep.msg.Error.Code != code {
		t.Fatalf("want HTTP %d with JSON-RPC error %d, got %d:\n%s", status, code, rep.status, rep.body)
	}
	if rep.msg.Result != nil {
		t.Errorf("error answer also carries a result:\n%s", rep.body)
	}
	if !strings.Contains(rep.msg.Error.Message, msgPart) {
		t.Errorf("message %q does not contain %q", rep.msg.Error.Message, msgPart)
	}
}

func TestMRTRFirstCallAsksForConfirmation(t *testing.T) {
	t.Parallel()
	for _, caps := range []string{
		`{"elicitation":{}}`,
		`{"elicitation":{"form":{}}}`,
		`{"elicitation":{"form":{},"url":{}}}`,
	} {
		t.Run(caps, func(t *testing.T) {
			h := mrtrServer(t, testSecret, newClock())
			rep := mrtrCall{id: "first", caps: caps}.do(t, h)
			if rep.status != http.StatusOK {
				t.Fatalf("status %d:\n%s", rep.status, rep.body)
			}
			if string(rep.msg.ID) != `"first"` {
				t.Errorf("id = %s, want \"first\"", rep.msg.ID)
			}
			res := rep.msg.Result
			if !bytes.HasPrefix(rep.body, []byte(`{"jsonrpc":"2.0","id":"first","result":{"resultType":"input_required",`)) {
				t.Errorf("resultType input_required is not first:\n%s", rep.body)
			}
			for _, k := range []string{"ttlMs", "cacheScope", "content", "isError", "structuredContent"} {
				if _, ok := res[k]; ok {
					t.Errorf("input_required result carries %q:\n%s", k, rep.body)
				}
			}
			meta, _ := res["_meta"].(map[string]any)
			wantInfo := map[string]any{"name": "golden-server", "title": "Golden Server", "version": "1.0.0"}
			if !reflect.DeepEqual(meta["io.modelcontextprotocol/serverInfo"], wantInfo) {
				t.Errorf("_meta serverInfo = %v, want %v", meta["io.modelcontextprotocol/serverInfo"], wantInfo)
			}
			if s, _ := res["requestState"].(string); s == "" {
				t.Errorf("requestState missing or not a string:\n%s", rep.body)
			}
			wantRequests := map[string]any{
				"confirm": map[string]any{
					"method": "elicitation/create",
					"params": map[string]any{
						"mode":            "form",
						"message":         "Delete item 1? This cannot be undone.",
						"requestedSchema": roundTrip(t, confirmSchema),
					},
				},
			}
			if !reflect.DeepEqual(res["inputRequests"], wantRequests) {
				got, _ := json.Marshal(res["inputRequests"])
				want, _ := json.Marshal(wantRequests)
				t.Errorf("inputRequests =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal(mustJSON(t, v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMRTRStatesAreFresh(t *testing.T) {
	t.Parallel()
	h := mrtrServer(t, testSecret, newClock())
	a := firstCall(t, h, mrtrCall{})
	b := firstCall(t, h, mrtrCall{})
	if a == b {
		t.Errorf("two first calls got the same requestState %q", a)
	}
}

func TestMRTRAcceptRuns(t *testing.T) {
	t.Parallel()
	h := mrtrServer(t, testSecret, newClock())
	state := firstCall(t, h, mrtrCall{})
	rep := mrtrCall{id: 2, requestState: state, inputResponses: accept}.do(t, h)
	wantComplete(t, rep, "Deleted item 1 (item:1).", false)
	if _, ok := rep.msg.Result["ttlMs"]; ok {
		t.Errorf("tools/call result carries ttlMs:\n%s", rep.body)
	}
	if string(rep.msg.ID) != "2" {
		t.Errorf("id = %s, want 2", rep.msg.ID)
	}
}

func TestMRTRSameArgumentsOtherSpelling(t *testing.T) {
	t.Parallel()
	// The binding hashes the canonical arguments: white space and key order
	// do not matter, the values do.
	h := mrtrServer(t, testSecret, newClock())
	state := firstCall(t, h, mrtrCall{arguments: `{"id":"1"}`})
	rep := mrtrCall{arguments: "{ \"id\" :\t\"1\" }", requestState: state, inputResponses: accept}.do(t, h)
	wantComplete(t, rep, "Deleted item 1", false)
}

func TestMRTRAnotherReplicaOpensTheState(t *testing.T) {
	t.Parallel()
	clock := newClock()
	one, two := mrtrServer(t, testSecret, clock), mrtrServer(t, testSecret, clock)
	state := firstCall(t, one, mrtrCall{})
	wantComplete(t, mrtrCall{requestState: state, inputResponses: accept}.do(t, two), "Deleted item 1", false)

	other := mrtrServer(t, []byte("another secret of at least 32 bytes!"), clock)
	wantError(t, mrtrCall{requestState: state, inputResponses: accept}.do(t, other), http.StatusOK, -32602, "requestState")
}

func TestMRTRDeclineAndCancelRunNothing(t *testing.T) {
	t.Parallel()
	for name, responses := range map[string]string{
		"decline":                `{"confirm":{"action":"decline"}}`,
		"cancel":                 `{"confirm":{"action":"cancel"}}`,
		"accept without confirm": `{"confirm":{"action":"accept","content":{"confirm":false}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			h := mrtrServer(t, testSecret, newClock())
			state := firstCall(t, h, mrtrCall{})
			wantComplete(t, mrtrCall{requestState: state, inputResponses: responses}.do(t, h), "Nothing was done", true)
		})
	}
}

func TestMRTRTamperedState(t *testing.T) {
	t.Parallel()
	h := mrtrServer(t, testSecret, newClock())
	state := firstCall(t, h, mrtrCall{})
	rep := mrtrCall{id: "t", requestState: state + "-TAMPERED", inputResponses: accept}.do(t, h)
	wantError(t, rep, http.StatusOK, -32602, "requestState")
	if string(rep.msg.ID) != `"t"` {
		t.Errorf("id = %s, want \"t\"", rep.msg.ID)
	}

	// One flipped character inside the token.
	b := []byte(state)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	wantError(t, mrtrCall{requestState: string(b), inputResponses: accept}.do(t, h), http.StatusOK, -32602, "requestState")

	for name, forged := range map[string]any{
		"empty string": "",
		"garbage":      "not-a-state",
		"number":       42,
		"object":       map[string]any{"state": state},
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, mrtrCall{requestState: forged, inputResponses: accept}.do(t, h), http.StatusOK, -32602, "requestState")
		})
	}
}

func TestMRTRStateBoundToArguments(t *testing.T) {
	t.Parallel()
	h := mrtrServer(t, testSecret, newClock())
	state := firstCall(t, h, mrtrCall{arguments: `{"id":"1"}`})
	rep := mrtrCall{arguments: `{"id":"2"}`, requestState: state, inputResponses: accept}.do(t, h)
	wantError(t, rep, http.StatusOK, -32602, "requestState")
}

func TestMRTRStateBoundToTool(t *testing.T) {
	t.Parallel()
	h := mrtrServer(t, testSecret, newClock())
	state := firstCall(t, h, mrtrCall{})
	rep := mrtrCall{tool: "echo", arguments: `{"text":"1"}`, requestState: state, inputResponses: accept}.do(t, h)
	wantError(t, rep, http.StatusOK, -32602, "requestState")
}

func TestMRTRStateBoundToPrincipal(t *testing.T) {
	t.Parallel()
	h := mrtrServer(t, testSecret, newClock())
	state := firstCall(t, h, mrtrCall{principal: "alice"})
	rep := mrtrCall{principal: "mallory", requestState: state, inputResponses: accept}.do(t, h)
	wantError(t, rep, http.StatusOK, -32602, "requestState")
	// Alice herself can still use it.
	wantComplete(t, mrtrCall{principal: "alice", requestState: state, inputResponses: accept}.do(t, h), "Deleted item 1", false)
}

func TestMRTRStateExpires(t *testing.T) {
	t.Parallel()
	clock := newClock()
	h := mrtrServer(t, testSecret, clock)

	state := firstCall(t, h, mrtrCall{})
	clock.Advance(5*time.Minute - time.Second)
	wantComplete(t, mrtrCall{requestState: state, inputResponses: accept}.do(t, h), "Deleted item 1", false)

	state = firstCall(t, h, mrtrCall{})
	clock.Advance(5*time.Minute + time.Second)
	wantError(t, mrtrCall{requestState: state, inputResponses: accept}.do(t, h), http.StatusOK, -32602, "requestState")

	state = firstCall(t, h, mrtrCall{})
	clock.Advance(48 * time.Hour)
	wantError(t, mrtrCall{requestState: state, inputResponses: accept}.do(t, h), http.StatusOK, -32602, "requestState")
}

func TestMRTRMissingFormCapability(t *testing.T) {
	t.Parallel()
	for _, caps := range []string{
		`{}`,
		`{"elicitation":{"url":{}}}`,
		`{"sampling":{},"roots":{}}`,
	} {
		t.Run(caps, func(t *testing.T) {
			h := mrtrServer(t, testSecret, newClock())
			rep := mrtrCall{id: 9, caps: caps}.do(t, h)
			wantError(t, rep, http.StatusBadRequest, -32021, "capability")
			want := map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}
			if !reflect.DeepEqual(rep.msg.Error.Data, want) {
				t.Errorf("data = %v, want %v", rep.msg.Error.Data, want)
			}
			if string(rep.msg.ID) != "9" {
				t.Errorf("id = %s, want 9", rep.msg.ID)
			}
		})
	}
}

func TestMRTRLegacyEraRefuses(t *testing.T) {
	t.Parallel()
	h := mrtrServer(t, testSecret, newClock())
	rep := mrtrCall{legacy: true}.do(t, h)
	if rep.status != http.StatusOK || rep.msg.Error != nil {
		t.Fatalf("status %d, want 200 with a result:\n%s", rep.status, rep.body)
	}
	if _, ok := rep.msg.Result["resultType"]; ok {
		t.Errorf("2025 result carries resultType:\n%s", rep.body)
	}
	if _, ok := rep.msg.Result["requestState"]; ok {
		t.Errorf("2025 result carries requestState:\n%s", rep.body)
	}
	if rep.msg.Result["isError"] != true {
		t.Errorf("isError = %v, want true:\n%s", rep.msg.Result["isError"], rep.body)
	}
	if v := headerValues(rep.header, "MCP-Protocol-Version"); len(v) != 1 || v[0] != "2025-06-18" {
		t.Errorf("MCP-Protocol-Version = %q", v)
	}
}

func TestMRTRMalformedInputResponses(t *testing.T) {
	t.Parallel()
	for name, responses := range map[string]string{
		"unknown action":          `{"confirm":{"action":"maybe"}}`,
		"missing action":          `{"confirm":{"content":{"confirm":true}}}`,
		"answer not an object":    `{"confirm":"accept"}`,
		"inputResponses an array": `[{"action":"accept"}]`,
		"inputResponses a string": `"accept"`,
		"content on decline":      `{"confirm":{"action":"decline","content":{"confirm":true}}}`,
		"content value an object": `{"confirm":{"action":"accept","content":{"confirm":{"yes":true}}}}`,
		"content not an object":   `{"confirm":{"action":"accept","content":[true]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			h := mrtrServer(t, testSecret, newClock())
			state := firstCall(t, h, mrtrCall{})
			wantError(t, mrtrCall{requestState: state, inputResponses: responses}.do(t, h), http.StatusOK, -32602, "")
		})
	}
}

func TestMRTRUnaskedResponsesIgnored(t *testing.T) {
	t.Parallel()
	// Keys the state did not ask for are ignored, even malformed ones
	// (mcp-protocol §5.3 "Ignore unknown inputResponses keys").
	h := mrtrServer(t, testSecret, newClock())
	state := firstCall(t, h, mrtrCall{})
	responses := `{"confirm":{"action":"accept","content":{"confirm":true}},"other":{"action":"maybe"}}`
	wantComplete(t, mrtrCall{requestState: state, inputResponses: responses}.do(t, h), "Deleted item 1", false)
}

func TestMRTRRetryWithoutAnswerAsksAgain(t *testing.T) {
	t.Parallel()
	h := mrtrServer(t, testSecret, newClock())
	state := firstCall(t, h, mrtrCall{})
	again := firstCall(t, h, mrtrCall{requestState: state})
	if again == state {
		t.Errorf("the re-prompt reused the old requestState")
	}
	// And its new state works.
	wantComplete(t, mrtrCall{requestState: again, inputResponses: accept}.do(t, h), "Deleted item 1", false)
}

func TestMRTRAnswerWithoutStateDoesNotRun(t *testing.T) {
	t.Parallel()
	// A client cannot skip the confirmation by sending an answer with no
	// state: the tool asks again.
	h := mrtrServer(t, testSecret, newClock())
	firstCall(t, h, mrtrCall{inputResponses: accept})
}
