package idempotency

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/rest"
)

type thingIn struct {
	Name string `json:"name"`
	Fail int    `json:"fail,omitempty"`
}

// thingsAPI is a tiny API whose writes count how often they ran; the
// caller's organization comes from the X-Org header. codes spell its
// error codes (nil: the canonical ones).
func thingsAPI(s *Store, runs *atomic.Int32, gate chan struct{}, codes rest.ErrorCodes) *rest.API {
	api := rest.New(rest.Config{BasePath: "/v1", Idempotency: s, ErrorCodes: codes,
		Authorize: func(r *http.Request, op *rest.Operation) (*http.Request, *rest.Error) {
			if org := r.Header.Get("X-Org"); org != "" {
				return r.WithContext(identity.With(r.Context(), &identity.Identity{OrganizationID: org})), nil
			}
			return r, nil
		}})
	an := mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)}
	rest.Handle(api, rest.Operation{ID: "things_create", Method: "POST", Path: "/things", Annotations: an},
		func(ctx context.Context, in *thingIn) (*rest.Response, error) {
			n := runs.Add(1)
			if gate != nil {
				<-gate
			}
			switch in.Fail {
			case 500:
				return nil, io.ErrUnexpectedEOF
			case 403:
				return nil, rest.Forbidden("no")
			case 422:
				return nil, rest.Validation("bad", rest.FieldError{Field: "name", Message: "bad"})
			}
			res := rest.Created(map[string]any{"data": map[string]any{"name": in.Name, "run": n}})
			res.Header = http.Header{"Location": {"/v1/things/" + in.Name}, "X-Ratelimit-Remaining": {"9"}}
			return res, nil
		})
	return api
}

func post(t *testing.T, url, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/things", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// Through a real API on both engines: a retry with the same key gets the
// first response (status, body, Location) marked Idempotent-Replayed and
// runs nothing; JSON key order does not matter; another body is a
// conflict; keys are per organization; 5xx and 403 are not kept; 4xx
// validation errors are; the header is validated; no key, no effect.
func TestIdempotencyThroughTheAPI(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s, _ := newStore(db)
		var runs atomic.Int32
		srv := httptest.NewServer(thingsAPI(s, &runs, nil, nil))
		defer srv.Close()

		code, h, first := post(t, srv.URL, `{"name":"a","fail":0}`, "X-Org", "o1", "X-Idempotency-Key", "key-1")
		if code != 201 || h.Get(rest.ReplayedHeader) != "" || runs.Load() != 1 {
			t.Fatalf("first: %d %v %s", code, h, first)
		}
		code, h, again := post(t, srv.URL, `{ "fail":0, "name":"a" }`, "X-Org", "o1", "X-Idempotency-Key", "key-1")
		if code != 201 || again != first || h.Get(rest.ReplayedHeader) != "true" || h.Get("Location") != "/v1/things/a" || runs.Load() != 1 {
			t.Fatalf("replay: %d %v %s (runs %d)", code, h, again, runs.Load())
		}
		if h.Get("X-Ratelimit-Remaining") != "" {
			t.Fatalf("a per-answer header was replayed: %v", h)
		}
		code, _, body := post(t, srv.URL, `{"name":"b"}`, "X-Org", "o1", "Idempotency-Key", "key-1")
		if code != 409 || !strings.Contains(body, `"idempotency_key_reused"`) || runs.Load() != 1 {
			t.Fatalf("other body, same key: %d %s", code, body)
		}
		if code, _, _ := post(t, srv.URL, `{"name":"b"}`, "X-Org", "o2", "X-Idempotency-Key", "key-1"); code != 201 || runs.Load() != 2 {
			t.Fatalf("another organization's key: %d", code)
		}
		// Not kept: a server failure and a refusal; the retry runs again.
		for _, fail := range []string{"500", "403"} {
			before := runs.Load()
			c1, _, _ := post(t, srv.URL, `{"name":"x","fail":`+fail+`}`, "X-Org", "o1", "X-Idempotency-Key", "k-"+fail)
			c2, h2, _ := post(t, srv.URL, `{"name":"x","fail":`+fail+`}`, "X-Org", "o1", "X-Idempotency-Key", "k-"+fail)
			if c1 != c2 || c1 < 403 || h2.Get(rest.ReplayedHeader) != "" || runs.Load() != before+2 {
				t.Fatalf("fail %s: %d %d runs %d→%d", fail, c1, c2, before, runs.Load())
			}
		}
		// Kept: a client error the handler answered.
		before := runs.Load()
		c1, _, _ := post(t, srv.URL, `{"name":"x","fail":422}`, "X-Org", "o1", "X-Idempotency-Key", "k-422")
		c2, h2, _ := post(t, srv.URL, `{"name":"x","fail":422}`, "X-Org", "o1", "X-Idempotency-Key", "k-422")
		if c1 != 422 || c2 != 422 || h2.Get(rest.ReplayedHeader) != "true" || runs.Load() != before+1 {
			t.Fatalf("422: %d %d runs %d→%d", c1, c2, before, runs.Load())
		}
		for _, bad := range []string{strings.Repeat("k", 256), "caf\u00e9"} {
			if code, _, body := post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1", "X-Idempotency-Key", bad); code != 400 || !strings.Contains(body, `"X-Idempotency-Key"`) {
				t.Fatalf("bad key %q: %d %s", bad, code, body)
			}
		}
		if code, _, body := post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1", "X-Idempotency-Key", "one", "Idempotency-Key", "two"); code != 400 || !strings.Contains(body, "Idempotency-Key") {
			t.Fatalf("two different keys: %d %s", code, body)
		}
		before = runs.Load()
		post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1")
		post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1")
		if runs.Load() != before+2 {
			t.Fatal("requests without a key must all run")
		}
	})
}

// Two identical requests at once, the first running for longer than a
// retry waits (Options.Wait; SQLite's busy timeout): one runs; the other
// is told the key is in use (nothing stored for it), and a later retry
// gets the replay.
func TestIdempotencyConcurrentRequests(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s, _ := newStore(db)
		var runs atomic.Int32
		gate := make(chan struct{})
		srv := httptest.NewServer(thingsAPI(s, &runs, gate, nil))
		defer srv.Close()
		var wg sync.WaitGroup
		var first int
		wg.Add(1)
		go func() {
			defer wg.Done()
			first, _, _ = post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1", "X-Idempotency-Key", "same")
		}()
		for runs.Load() == 0 {
			time.Sleep(time.Millisecond) // until the first request holds the key and runs
		}
		code, _, body := post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1", "X-Idempotency-Key", "same")
		if code != 409 || !strings.Contains(body, `"idempotency_key_in_use"`) {
			t.Fatalf("concurrent: %d %s", code, body)
		}
		close(gate)
		wg.Wait()
		code, h, _ := post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1", "X-Idempotency-Key", "same")
		if first != 201 || code != 201 || h.Get(rest.ReplayedHeader) != "true" || runs.Load() != 1 {
			t.Fatalf("after: first %d, retry %d, runs %d", first, code, runs.Load())
		}
	})
}

// An API with its own error-code style answers the idempotency layer's
// conflicts in it too: a key reused with another request and a key still
// in use are both CONFLICT for an API spelling codes as Dunning does.
func TestIdempotencyConflictsInTheAPIsCodeStyle(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s, _ := newStore(db)
		var runs atomic.Int32
		gate := make(chan struct{})
		upper := func(c string) string {
			if c == rest.CodeIdempotencyKeyReused || c == rest.CodeIdempotencyKeyInUse {
				return "CONFLICT"
			}
			return strings.ToUpper(c)
		}
		srv := httptest.NewServer(thingsAPI(s, &runs, gate, upper))
		defer srv.Close()
		done := make(chan int)
		go func() {
			code, _, _ := post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1", "X-Idempotency-Key", "k")
			done <- code
		}()
		for runs.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		if code, _, body := post(t, srv.URL, `{"name":"a"}`, "X-Org", "o1", "X-Idempotency-Key", "k"); code != 409 || !strings.Contains(body, `"code":"CONFLICT"`) || !strings.Contains(body, "still running") {
			t.Fatalf("in use: %d %s", code, body)
		}
		close(gate)
		if code := <-done; code != 201 {
			t.Fatalf("first: %d", code)
		}
		if code, _, body := post(t, srv.URL, `{"name":"b"}`, "X-Org", "o1", "X-Idempotency-Key", "k"); code != 409 || !strings.Contains(body, `"code":"CONFLICT"`) || !strings.Contains(body, "different request") {
			t.Fatalf("reused: %d %s", code, body)
		}
		if code, _, body := post(t, srv.URL, `{"name":"b","fail":422}`, "X-Org", "o1"); code != 422 || !strings.Contains(body, `"code":"VALIDATION_FAILED"`) {
			t.Fatalf("validation: %d %s", code, body)
		}
	})
}
