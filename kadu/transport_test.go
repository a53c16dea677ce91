package kadu

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// The Kadu endpoint as its seed describes it: 1 MB cap, its own origin or
// localhost.
func TestKaduTransport(t *testing.T) {
	t.Parallel()
	p, err := productkit.Assemble(Spec(), productkit.Deps{PublicURL: "https://kadu.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	post := func(body, origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Host = "kadu.example.com"
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		p.Handler.ServeHTTP(w, r)
		return w
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for origin, want := range map[string]int{
		"https://kadu.example.com": 200, "http://localhost:6274": 200, "http://127.0.0.1:3000": 200,
		"https://evil.example": 403, "http://localhost.evil.example": 403,
	} {
		if w := post(ping, origin); w.Code != want {
			t.Errorf("origin %s: %d, want %d", origin, w.Code, want)
		}
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","pad":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	if w := post(big, ""); w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), `"id":null`) || !strings.Contains(w.Body.String(), "Request body too large (limit 1048576 bytes)") {
		t.Fatalf("over 1 MB: %d %s", w.Code, w.Body)
	}
	w := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, "")
	if !strings.Contains(w.Body.String(), `"serverInfo":{"name":"kadu","title":"Kadu","version":"1.0.0"}`) {
		t.Fatalf("initialize: %s", w.Body)
	}
}
