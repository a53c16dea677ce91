package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/platform/webhooks"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }

// During a rotation's grace the header holds the new and the old
// signature: a receiver with either secret (or both) accepts; one with
// neither, or a changed body, answers 498.
func TestReceiverVerifiesEitherSecret(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event":{"slug":"kadu.execution.succeeded"}}`)
	header := webhooks.Sign("whsec_new", body) + " " + webhooks.Sign("whsec_old", body)
	for _, c := range []struct {
		secrets string
		body    []byte
		want    int
	}{
		{"whsec_old", body, 200},
		{"whsec_new", body, 200},
		{"whsec_new,whsec_old", body, 200},
		{"whsec_other", body, 498},
		{"whsec_old", append([]byte(" "), body...), 498},
		{"", body, 200},
	} {
		out := &syncBuf{}
		srv := httptest.NewServer(handler(splitSecrets(c.secrets), out))
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", bytes.NewReader(c.body))
		req.Header.Set(webhooks.SignatureHeader, header)
		req.Header.Set("X-Kobana-Event", "kadu.execution.succeeded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		if resp.StatusCode != c.want {
			t.Errorf("secrets %q: %d, want %d", c.secrets, resp.StatusCode, c.want)
		}
		if c.want == 498 && !strings.Contains(out.b.String(), "REJECTED") {
			t.Errorf("secrets %q: no rejection printed", c.secrets)
		}
	}
}
