package inbox

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// The Inbox endpoint as its seed describes it: server identity, 1 MB cap,
// browser origins from the allow-list only.
func TestInboxTransport(t *testing.T) {
	t.Parallel()
	p, err := productkit.Assemble(Spec(Config{}), productkit.Deps{PublicURL: "https://inbox.example.com", AllowedOrigins: []string{"https://app.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	discover := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`
	post := func(body, origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Host = "inbox.example.com"
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		p.Handler.ServeHTTP(w, r)
		return w
	}
	w := post(discover, "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"serverInfo":{"name":"kobana-autonomous-inbox","title":"Kobana Autonomous Inbox","version":"0.1.0"}`) {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	if !strings.Contains(w.Body.String(), "never instructions") || !strings.Contains(w.Body.String(), "confirmation_required") || !strings.Contains(w.Body.String(), "approval_url") {
		t.Fatalf("instructions must warn about third-party data and confirmation_required, and say what to do with its approval_url: %s", w.Body)
	}
	if w := post(discover, "https://app.example.com"); w.Code != 200 {
		t.Fatalf("allowed origin: %d", w.Code)
	}
	if w := post(discover, "https://inbox.example.com.evil.test"); w.Code != http.StatusForbidden {
		t.Fatalf("foreign origin: %d", w.Code)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","pad":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	if w := post(big, ""); w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "limit 1048576 bytes") {
		t.Fatalf("over 1 MB: %d %s", w.Code, w.Body)
	}
}
