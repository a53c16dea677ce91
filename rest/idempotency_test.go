package rest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/rest"
)

// memIdem is an in-memory rest.Idempotency that records what the API
// asked of it (the database implementation is platform/idempotency).
type memIdem struct {
	mu      sync.Mutex
	claims  map[string]string
	stored  map[string]rest.StoredResponse
	aborted int
}

func (m *memIdem) Scope(r *http.Request) string { return r.Header.Get("X-Tenant") }

func (m *memIdem) Begin(ctx context.Context, scope, key, fp string) (context.Context, *rest.StoredResponse, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if res, ok := m.stored[scope+key]; ok {
		return ctx, &res, "", nil
	}
	if _, ok := m.claims[scope+key]; ok {
		return ctx, nil, "", rest.ErrIdempotencyKeyInUse
	}
	m.claims[scope+key] = fp
	return ctx, nil, "c", nil
}

func (m *memIdem) Complete(_ context.Context, scope, key, _ string, res rest.StoredResponse) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.claims, scope+key)
	m.stored[scope+key] = res
	return nil
}

func (m *memIdem) Abort(_ context.Context, scope, key, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.claims, scope+key)
	m.aborted++
	return nil
}

type boomIn struct {
	Panic bool `json:"panic,omitempty"`
}

// A handler that panics releases its claim (a retry may run), writes with
// no scope ignore the key, and DELETE ignores it altogether.
func TestIdempotencyHookEdges(t *testing.T) {
	t.Parallel()
	m := &memIdem{claims: map[string]string{}, stored: map[string]rest.StoredResponse{}}
	a := rest.New(rest.Config{BasePath: "/v1", Idempotency: m})
	an := mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)}
	runs := 0
	rest.Handle(a, rest.Operation{ID: "boom", Method: "POST", Path: "/boom", Annotations: an}, func(ctx context.Context, in *boomIn) (*rest.Response, error) {
		runs++
		if in.Panic {
			panic("boom")
		}
		return rest.Created(map[string]any{"runs": runs}), nil
	})
	rest.Handle(a, rest.Operation{ID: "boom_delete", Method: "DELETE", Path: "/boom", Annotations: an}, func(ctx context.Context, in *struct{}) (*rest.Response, error) {
		runs++
		return rest.NoContent(), nil
	})
	srv := httptest.NewServer(a)
	defer srv.Close()
	send := func(method, body string, header ...string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+"/v1/boom", strings.NewReader(body))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	send("POST", `{"panic":true}`, "X-Tenant", "t", "X-Idempotency-Key", "p")
	if m.aborted != 1 || len(m.claims) != 0 {
		t.Fatalf("a panicking handler kept its claim: aborted %d, claims %v", m.aborted, m.claims)
	}
	if code, _ := send("POST", `{}`, "X-Tenant", "t", "X-Idempotency-Key", "p"); code != 201 {
		t.Fatalf("retry after the panic: %d", code)
	}
	runs = 0
	send("POST", `{}`, "X-Idempotency-Key", "q")
	send("POST", `{}`, "X-Idempotency-Key", "q")
	if runs != 2 {
		t.Fatalf("no scope: the key must be ignored, runs %d", runs)
	}
	runs = 0
	send("DELETE", "", "X-Tenant", "t", "X-Idempotency-Key", "d")
	send("DELETE", "", "X-Tenant", "t", "X-Idempotency-Key", "d")
	if runs != 2 {
		t.Fatalf("DELETE ignores the key: runs %d", runs)
	}
}
