package observe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
)

func testEndpoint(t *testing.T) http.Handler {
	t.Helper()
	h, err := mcp.NewHandler(mcp.Options{Name: "t", Version: "1"}, mcp.Catalog{Tools: []mcp.Tool{{
		Name: "emails_get", Description: "d",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)},
		Handler: func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			slog.InfoContext(ctx, "inside the tool")
			return mcp.TextResult("ok"), nil
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return mux
}

func TestInstrumentLogsAndCountsWithoutSecrets(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(LogHandler{Handler: slog.NewJSONHandler(&logs, nil)})
	m := NewMetrics()
	srv := httptest.NewServer(Instrument("inbox", m, log, testEndpoint(t)))
	defer srv.Close()

	secret := "eyJhbGciOiJFUzI1NiJ9.secret-token-value"
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"emails_get","arguments":{"password":"hunter2"}}}`
	req, _ := http.NewRequest("POST", srv.URL+"/mcp?access_token="+secret, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(RequestIDHeader, "req-42.a")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get(RequestIDHeader) != "req-42.a" {
		t.Fatalf("a plain incoming request id is kept: %q", resp.Header.Get(RequestIDHeader))
	}
	// A forged id is replaced.
	req, _ = http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"nope"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(RequestIDHeader, "x\" level=ERROR msg=forged")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if id := resp.Header.Get(RequestIDHeader); !validRequestID(id) || strings.Contains(id, "forged") {
		t.Fatalf("forged request id echoed: %q", id)
	}
	out := logs.String()
	for _, leak := range []string{secret, "hunter2", "secret-token", "Bearer"} {
		if strings.Contains(out, leak) {
			t.Fatalf("the log holds %q:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, `"request_id":"req-42.a"`) || !strings.Contains(out, `"tool":"emails_get"`) || !strings.Contains(out, `"mcp_method":"tools/call"`) {
		t.Fatalf("access log lacks fields:\n%s", out)
	}

	mresp := httptest.NewRecorder()
	m.Handler().ServeHTTP(mresp, httptest.NewRequest("GET", "/metrics", nil))
	text := mresp.Body.String()
	for _, want := range []string{
		`kobana_mcp_requests_total{era="2025",method="tools/call",outcome="tool_error",product="inbox",tool="emails_get"} 1`,
		`kobana_mcp_requests_total{era="2025",method="other",outcome="error",product="inbox",tool=""} 1`,
		`kobana_http_requests_total{product="inbox",route="mcp",status="2xx"} 2`,
		`kobana_mcp_request_duration_seconds_count{method="tools/call",product="inbox"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestHealthEndpoints(t *testing.T) {
	t.Parallel()
	failing := errors.New("dial tcp 10.0.0.5:5432: password=secret")
	ok := true
	h := Health([]Check{{Name: "database", Ping: func(context.Context) error {
		if ok {
			return nil
		}
		return failing
	}}}, http.NotFoundHandler())
	get := func(path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		b, _ := io.ReadAll(w.Body)
		return w.Code, string(b)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("healthz: %d %s", code, body)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"database":"ok"`) {
		t.Fatalf("readyz: %d %s", code, body)
	}
	ok = false
	code, body := get("/readyz")
	if code != 503 || !strings.Contains(body, `"database":"unavailable"`) || strings.Contains(body, "secret") {
		t.Fatalf("readyz down: %d %s", code, body)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Fatal("healthz depends on nothing but the process")
	}
	if code, _ := get("/other"); code != 404 {
		t.Fatal("other paths go to the product")
	}
}
