package dunning

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/productkit"
)

// The Dunning endpoint as its seed describes it: 2 MB cap, only its own
// origin, indented tool text.
func TestDunningTransport(t *testing.T) {
	t.Parallel()
	p, err := productkit.Assemble(Spec(), productkit.Deps{PublicURL: "https://dunning.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	post := func(body, origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		p.Handler.ServeHTTP(w, r)
		return w
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if w := post(ping, "https://dunning.example.com"); w.Code != 200 {
		t.Fatalf("own origin: %d", w.Code)
	}
	if w := post(ping, "http://localhost:3000"); w.Code != http.StatusForbidden {
		t.Fatalf("Dunning accepts only its own origin, got %d for localhost", w.Code)
	}
	// 1.5 MB passes the cap (it is a valid ping), 2 MB + 1 does not.
	mid := `{"jsonrpc":"2.0","id":1,"method":"ping","pad":"` + strings.Repeat("x", 1500000) + `"}`
	if w := post(mid, ""); w.Code != 200 {
		t.Fatalf("1.5 MB: %d %s", w.Code, w.Body.String()[:100])
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","pad":"` + strings.Repeat("x", ledger.MaxBodyBytes) + `"}`
	if w := post(big, ""); w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "limit 2097152 bytes") {
		t.Fatalf("over 2 MB: %d", w.Code)
	}
	if opts := ledger.MCPOptions(productkit.Deps{}); opts.TextIndent != "  " || opts.Version != "1.0.0" || opts.Name != "kobana-dunning" {
		t.Fatalf("options: %+v", opts)
	}
}
