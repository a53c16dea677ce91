package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// These tests run the fixture server over real loopback HTTP and check a
// handful of fixtures in both eras, so `go test ./...` catches a broken
// fixture without Node or the conformance suite. The suite itself runs from
// conformance/run-everything.sh.

// fullCaps are the client capabilities the conformance suite declares.
var fullCaps = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{"listChanged": true}}

type testServer struct {
	t   *testing.T
	url string
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	h, err := newHandler(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("newHandler: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle(endpointPath, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &testServer{t: t, url: srv.URL + endpointPath}
}

// response is a decoded JSON-RPC answer with its HTTP status.
type response struct {
	status int
	header http.Header
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// post sends one JSON-RPC body with the given headers. A "Host" entry
// replaces the request's Host.
func (s *testServer) post(headers map[string]string, body any) response {
	s.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		s.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(b))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, header: res.Header}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			s.t.Fatalf("answer is not JSON: %v\n%s", err, raw)
		}
	}
	return out
}

// modern sends a 2026-07-28 request: the _meta envelope plus the headers
// the transport requires (Mcp-Name for tools/call, prompts/get, resources/read).
func (s *testServer) modern(method string, params map[string]any, caps map[string]any, extra map[string]string) response {
	s.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "everything-test", "version": "1.0.0"},
	}
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	switch method {
	case "tools/call", "prompts/get":
		h["Mcp-Name"] = params["name"].(string)
	case "resources/read":
		h["Mcp-Name"] = params["uri"].(string)
	}
	for k, v := range extra {
		h[k] = v
	}
	return s.post(h, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

// legacy sends a 2025 request after the (stateless) handshake: only the
// negotiated version travels, in the header.
func (s *testServer) legacy(version, method string, params map[string]any) response {
	s.t.Helper()
	return s.post(map[string]string{"MCP-Protocol-Version": version}, map[string]any{"jsonrpc": "2.0", "id": "a", "method": method, "params": params})
}

func (r response) ok(t *testing.T) map[string]any {
	t.Helper()
	if r.status != http.StatusOK || r.Error != nil {
		t.Fatalf("want a result, got HTTP %d error %+v", r.status, r.Error)
	}
	return r.Result
}

func (r response) wantError(t *testing.T, status, code int) {
	t.Helper()
	if r.status != status || r.Error == nil || r.Error.Code != code {
		t.Fatalf("want HTTP %d with error %d, got HTTP %d, error %+v, result %v", status, code, r.status, r.Error, r.Result)
	}
}

// firstText is content[0].text of a tool result.
func firstText(t *testing.T, result map[string]any) string {
	t.Helper()
	content, _ := result["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no content in %v", result)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	return text
}

func TestModernDiscoverAndLists(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)

	d := s.modern("server/discover", nil, map[string]any{}, nil).ok(t)
	if d["resultType"] != "complete" || d["cacheScope"] == nil || d["ttlMs"] == nil {
		t.Errorf("discover lacks resultType or caching hints: %v", d)
	}
	caps, _ := json.Marshal(d["capabilities"])
	if string(caps) != `{"completions":{},"prompts":{},"resources":{},"tools":{}}` {
		t.Errorf("capabilities = %s; want the four features with no listChanged/subscribe/logging", caps)
	}

	tools := s.modern("tools/list", nil, map[string]any{}, nil).ok(t)["tools"].([]any)
	if name := tools[0].(map[string]any)["name"]; name != "test_simple_text" {
		t.Errorf("tools[0] = %v; the suite needs test_simple_text first", name)
	}
	for _, raw := range tools {
		tool := raw.(map[string]any)
		if tool["description"] == "" || tool["description"] == nil {
			t.Errorf("tool %v has no description", tool["name"])
		}
		if tool["name"] == "json_schema_2020_12_tool" {
			schema := tool["inputSchema"].(map[string]any)
			if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" || schema["additionalProperties"] != false || schema["if"] == nil {
				t.Errorf("2020-12 schema lost keywords: %v", schema)
			}
		}
	}

	resources := s.modern("resources/list", nil, map[string]any{}, nil).ok(t)["resources"].([]any)
	if uri := resources[0].(map[string]any)["uri"]; uri != "test://static-text" {
		t.Errorf("resources[0] = %v; the suite needs test://static-text first", uri)
	}
}

func TestModernToolsAndResources(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)

	r := s.modern("tools/call", map[string]any{"name": "test_simple_text"}, map[string]any{}, nil).ok(t)
	if got := firstText(t, r); got != "This is a simple text response for testing." {
		t.Errorf("test_simple_text = %q", got)
	}
	if r["resultType"] != "complete" {
		t.Errorf("resultType = %v", r["resultType"])
	}

	r = s.modern("tools/call", map[string]any{"name": "test_error_handling", "arguments": map[string]any{}}, map[string]any{}, nil).ok(t)
	if r["isError"] != true {
		t.Errorf("test_error_handling is not a tool execution error: %v", r)
	}

	read := s.modern("resources/read", map[string]any{"uri": "test://template/123/data"}, map[string]any{}, nil).ok(t)
	text := read["contents"].([]any)[0].(map[string]any)["text"]
	if text != `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` {
		t.Errorf("template read = %v", text)
	}

	missing := s.modern("resources/read", map[string]any{"uri": "test://nope"}, map[string]any{}, nil)
	missing.wantError(t, http.StatusOK, -32602)
	if missing.Error.Data["uri"] != "test://nope" {
		t.Errorf("not-found data = %v; want the uri", missing.Error.Data)
	}

	// test_missing_capability: refused up front when sampling is undeclared.
	refused := s.modern("tools/call", map[string]any{"name": "test_missing_capability"}, map[string]any{}, nil)
	refused.wantError(t, http.StatusBadRequest, -32021)
	if _, ok := refused.Error.Data["requiredCapabilities"].(map[string]any)["sampling"]; !ok {
		t.Errorf("-32021 data = %v; want requiredCapabilities.sampling", refused.Error.Data)
	}
	if got := firstText(t, s.modern("tools/call", map[string]any{"name": "test_missing_capability"}, fullCaps, nil).ok(t)); got != "Success" {
		t.Errorf("with sampling declared: %q", got)
	}
}

func TestModernCustomHeader(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	call := func(header string) response {
		var extra map[string]string
		if header != "" {
			extra = map[string]string{"Mcp-Param-Value": header}
		}
		return s.modern("tools/call", map[string]any{"name": "test_custom_header", "arguments": map[string]any{"value": "Hello"}}, map[string]any{}, extra)
	}
	if got := firstText(t, call("=?base64?"+base64.StdEncoding.EncodeToString([]byte("Hello"))+"?=").ok(t)); got != "Value: Hello" {
		t.Errorf("base64 header: %q", got)
	}
	call("").wantError(t, http.StatusBadRequest, -32020)
	call("=?base64?SGVsbG8?=").wantError(t, http.StatusBadRequest, -32020)
	call("Goodbye").wantError(t, http.StatusBadRequest, -32020)
}

func TestModernMultiRound(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	call := func(responses map[string]any, state any) response {
		p := map[string]any{"name": "test_input_required_result_multi_round", "arguments": map[string]any{}}
		if responses != nil {
			p["inputResponses"] = responses
		}
		if state != nil {
			p["requestState"] = state
		}
		return s.modern("tools/call", p, fullCaps, nil)
	}
	accept := func(content map[string]any) map[string]any {
		return map[string]any{"action": "accept", "content": content}
	}

	r1 := call(nil, nil).ok(t)
	if r1["resultType"] != "input_required" || r1["inputRequests"].(map[string]any)["step1"] == nil {
		t.Fatalf("round 1: %v", r1)
	}
	r2 := call(map[string]any{"step1": accept(map[string]any{"name": "Alice"})}, r1["requestState"]).ok(t)
	if r2["resultType"] != "input_required" || r2["inputRequests"].(map[string]any)["step2"] == nil || r2["requestState"] == r1["requestState"] {
		t.Fatalf("round 2: %v", r2)
	}
	r3 := call(map[string]any{"step2": accept(map[string]any{"color": "blue"})}, r2["requestState"]).ok(t)
	if got := firstText(t, r3); got != "Alice's favorite color is blue." {
		t.Errorf("round 3: %q", got)
	}

	// A state altered by the client is refused before the tool runs.
	call(map[string]any{"step2": accept(map[string]any{"color": "blue"})}, r2["requestState"].(string)+"-TAMPERED").wantError(t, http.StatusOK, -32602)

	// Only declared capabilities are asked: sampling alone gets sampling alone.
	only := s.modern("tools/call", map[string]any{"name": "test_input_required_result_capabilities"}, map[string]any{"sampling": map[string]any{}}, nil).ok(t)
	requests := only["inputRequests"].(map[string]any)
	if len(requests) != 1 || requests["sample_input"] == nil {
		t.Errorf("capability-limited requests = %v", requests)
	}
}

func TestLegacyEra(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	for _, v := range []string{"2025-06-18", "2025-03-26"} {
		init := s.post(nil, map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
			"protocolVersion": v, "capabilities": fullCaps, "clientInfo": map[string]any{"name": "t", "version": "1"},
		}}).ok(t)
		if init["protocolVersion"] != v {
			t.Errorf("initialize(%s) negotiated %v", v, init["protocolVersion"])
		}
		if init["resultType"] != nil {
			t.Errorf("2025 results carry no resultType: %v", init)
		}
	}

	img := s.legacy("2025-06-18", "tools/call", map[string]any{"name": "test_image_content", "arguments": map[string]any{}}).ok(t)
	block := img["content"].([]any)[0].(map[string]any)
	if block["type"] != "image" || block["mimeType"] != "image/png" || block["data"] != pngBase64 {
		t.Errorf("image block = %v", block)
	}

	prompt := s.legacy("2025-06-18", "prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "testValue1", "arg2": "testValue2"}}).ok(t)
	msg := prompt["messages"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"]
	if msg != "Prompt with arguments: arg1='testValue1', arg2='testValue2'" {
		t.Errorf("prompt text = %v", msg)
	}

	s.legacy("2025-06-18", "resources/read", map[string]any{"uri": "test://nope"}).wantError(t, http.StatusOK, -32002)

	// A 2025 client cannot answer input_required: the tool says it did not run.
	mrtr := s.legacy("2025-06-18", "tools/call", map[string]any{"name": "test_input_required_result_elicitation"}).ok(t)
	if mrtr["isError"] != true {
		t.Errorf("input_required tool in 2025 = %v; want isError", mrtr)
	}
}

func TestOriginPolicy(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	initialize := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"},
	}}

	// DNS rebinding: a browser on evil.example.com, resolved to 127.0.0.1.
	evil := s.post(map[string]string{"Host": "evil.example.com", "Origin": "http://evil.example.com"}, initialize)
	if evil.status != http.StatusForbidden {
		t.Errorf("evil Host/Origin: HTTP %d; want 403", evil.status)
	}

	hostPort := strings.TrimPrefix(strings.TrimSuffix(s.url, endpointPath), "http://")
	local := s.post(map[string]string{"Host": hostPort, "Origin": "http://" + hostPort}, initialize)
	local.ok(t)
	if got := local.header.Get("Access-Control-Allow-Origin"); got != "http://"+hostPort {
		t.Errorf("Access-Control-Allow-Origin = %q", got)
	}
	for _, origin := range []string{"http://localhost:3000", "http://[::1]:8080"} {
		s.post(map[string]string{"Origin": origin}, initialize).ok(t)
	}

	// The same evil Origin is refused on the 2026 wire too.
	evil2026 := s.modern("server/discover", nil, map[string]any{}, map[string]string{"Host": "evil.example.com", "Origin": "http://evil.example.com"})
	if evil2026.status != http.StatusForbidden {
		t.Errorf("evil Origin, 2026: HTTP %d; want 403", evil2026.status)
	}
}
