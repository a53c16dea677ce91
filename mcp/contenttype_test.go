package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
)

// Every seed lists Content-Type: application/json as required: a POST with
// none, text/plain or a form type is refused with 415 and a JSON-RPC error
// naming the header, in both eras (docs/decisions.md "Content-Type"); JSON
// with parameters is served.
func TestContentTypeRequired(t *testing.T) {
	t.Parallel()
	h := mcp.MustNewHandler(goldenOptions(), toolsOnly())
	modern := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + envelope + `}}`
	legacy := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`
	cases := []struct {
		name    string
		types   []string // nil: no header
		want    int
		message string
	}{
		{"none", nil, 415, "Unsupported Media Type: the request has no Content-Type header; send Content-Type: application/json"},
		{"text/plain", []string{"text/plain"}, 415, `Unsupported Media Type: Content-Type "text/plain" is not supported; send Content-Type: application/json`},
		{"form", []string{"application/x-www-form-urlencoded"}, 415, `Content-Type "application/x-www-form-urlencoded" is not supported`},
		{"multipart", []string{"multipart/form-data; boundary=x"}, 415, `Content-Type "multipart/form-data; boundary=x" is not supported`},
		{"two headers", []string{"application/json", "application/json"}, 415, "more than one Content-Type header"},
		{"latin1", []string{"application/json; charset=iso-8859-1"}, 415, `charset "iso-8859-1" is not supported`},
		{"hostile", []string{"text/\x01plain\"}"}, 415, `Content-Type "text/?plain?}" is not supported`},
		{"json", []string{"application/json"}, 200, ""},
		{"json utf-8", []string{"application/json; charset=UTF-8"}, 200, ""},
		{"json upper", []string{"Application/JSON"}, 200, ""},
	}
	// A notification keeps no header requirements (202 without any).
	t.Run("notification", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusAccepted {
			t.Errorf("notification without Content-Type: %d, want 202", rec.Code)
		}
	})
	for _, era := range []string{"2026-07-28", "2025-06-18"} {
		for _, c := range cases {
			t.Run(era+"/"+c.name, func(t *testing.T) {
				body := legacy
				if era == "2026-07-28" {
					body = modern
				}
				r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
				if c.types != nil {
					r.Header["Content-Type"] = c.types
				}
				if era == "2026-07-28" {
					r.Header.Set("MCP-Protocol-Version", era)
					r.Header.Set("Mcp-Method", "server/discover")
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				b, _ := io.ReadAll(rec.Body)
				if rec.Code != c.want {
					t.Fatalf("status %d, want %d: %s", rec.Code, c.want, b)
				}
				if c.want == 415 {
					var got struct {
						ID    any
						Error struct {
							Code    int
							Message string
						}
					}
					if err := json.Unmarshal(b, &got); err != nil || got.ID != nil || got.Error.Code != -32600 || !strings.Contains(got.Error.Message, c.message) {
						t.Errorf("body %s, want a -32600 error with %q", b, c.message)
					}
					if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
						t.Errorf("answer Content-Type %q", ct)
					}
				}
			})
		}
	}
}
