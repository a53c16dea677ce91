package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeMessage feeds arbitrary bodies to the envelope decoder: it
// must never panic, must classify every input, and what it accepts must be
// a well-formed request (a string method, a string or integer id).
func FuzzDecodeMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{"k":[1,{"z":null}]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"p","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"\u006dethod":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`,
		``, ` `, `null`, `"x"`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, e := decodeMessage(body)
		if e != nil {
			if e.Code != CodeParseError && e.Code != CodeInvalidRequest {
				t.Fatalf("decode error with code %d", e.Code)
			}
			if m != nil && m.id != nil && !validID(m.id) {
				t.Fatalf("error echoes an invalid id %q", m.id)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		if m.response {
			return
		}
		if m.id != nil && !validID(m.id) {
			t.Fatalf("accepted id %q", m.id)
		}
		if !utf8.ValidString(m.method) {
			t.Fatalf("method is not UTF-8: %q", m.method)
		}
	})
}

// FuzzHeaderChecks drives the whole handler with arbitrary MCP headers and
// a 2026 or 2025 body: every answer must be one of the statuses the
// transport defines, carry Cache-Control: no-store and a supported
// MCP-Protocol-Version, and be JSON (or empty for 202).
func FuzzHeaderChecks(f *testing.F) {
	h := MustNewHandler(Options{Name: "fuzz", Version: "1"}, Catalog{Tools: []Tool{{
		Name: "echo", Description: "Echo.",
		Annotations: &ToolAnnotations{ReadOnlyHint: Bool(true)},
		Handler: func(ctx context.Context, r *CallToolRequest) (*CallToolResult, error) {
			return TextResult("ok"), nil
		},
	}}})
	f.Add("2026-07-28", "tools/call", "echo", "tools/call", "echo", true)
	f.Add("2026-07-28", "tools/call", "=?base64?ZWNobw==?=", "tools/call", "echo", true)
	f.Add("2026-07-28", "TOOLS/CALL", "echo", "tools/call", "echo", true)
	f.Add("2025-06-18", "", "", "tools/list", "", false)
	f.Add("1999-01-01", "ping", "", "ping", "", false)
	f.Add("", "", "", "initialize", "", false)
	f.Add("2026-07-28", "server/discover", "\x00", "server/discover", "", true)
	f.Fuzz(func(t *testing.T, version, method, name, bodyMethod, bodyName string, modern bool) {
		params := map[string]any{}
		if bodyName != "" {
			params["name"] = bodyName
		}
		if modern {
			params["_meta"] = map[string]any{MetaProtocolVersion: version, MetaClientCapabilities: map[string]any{}}
		} else {
			params["protocolVersion"] = version
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": bodyMethod, "params": params})
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		for k, v := range map[string]string{HeaderProtocolVersion: version, HeaderMethod: method, HeaderName: name} {
			if v != "" {
				r.Header[k] = []string{v}
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch w.Code {
		case 200, 202, 400, 404:
		default:
			t.Fatalf("status %d", w.Code)
		}
		if got := w.Header().Get("Cache-Control"); got != "no-store" {
			t.Fatalf("Cache-Control %q", got)
		}
		if v := w.Header().Get(HeaderProtocolVersion); !isSupportedVersion(v) {
			t.Fatalf("MCP-Protocol-Version %q", v)
		}
		if w.Header().Get("Mcp-Session-Id") != "" {
			t.Fatal("a session id was minted")
		}
		if w.Code == 202 {
			if w.Body.Len() != 0 {
				t.Fatal("202 with a body")
			}
			return
		}
		var resp map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
			t.Fatalf("answer is not JSON: %q", w.Body.String())
		}
		if w.Code != 200 && resp["error"] == nil {
			t.Fatalf("%d without a JSON-RPC error: %s", w.Code, w.Body.String())
		}
	})
}

// FuzzDecodeHeaderText checks the base64 sentinel: a decoded value must be
// exactly what strict, padded base64 of it gives back, and a literal value
// is returned untouched.
func FuzzDecodeHeaderText(f *testing.F) {
	for _, s := range []string{"echo", "=?base64?SGVsbG8=?=", "=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?BASE64?SGVsbG8=?=", "=?base64?=?=", "=?base64??=", "a\tb", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := decodeHeaderText(v)
		if !ok {
			return
		}
		if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
			if enc := base64.StdEncoding.EncodeToString([]byte(got)); "=?base64?"+enc+"?=" != v {
				t.Fatalf("%q decoded to %q, which encodes to %q", v, got, enc)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("decoded value is not UTF-8: %q", got)
			}
			return
		}
		if got != v {
			t.Fatalf("literal %q came back as %q", v, got)
		}
	})
}

var _ = http.MethodPost
