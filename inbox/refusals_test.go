package inbox

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// TestRefusalsSpeakLowerCase: the Inbox's API keeps the canonical
// lower-case codes on the answers written in front of it, where Dunning's
// are upper case: its rate limiter's 429 rate_limited and the overload
// guard's 503 unavailable.
func TestRefusalsSpeakLowerCase(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		guard := httpx.NewGuard(1, time.Second)
		release, inside := make(chan struct{}), make(chan struct{}, 1)
		limits := ratelimit.NewLimiter(ratelimit.NewMemoryStore(), "inbox", ratelimit.Rates{
			Reads: ratelimit.MustParseRate("1-M"), Writes: ratelimit.MustParseRate("100-M"),
			OrgReads: ratelimit.MustParseRate("100-M"), OrgWrites: ratelimit.MustParseRate("100-M"),
		}, slog.New(slog.DiscardHandler))
		e := producttest.Start(t, db, Spec(Config{SMTPAddr: "off"}), producttest.Options{RateLimits: limits, Wrap: func(h http.Handler) http.Handler {
			mux := http.NewServeMux()
			mux.HandleFunc("/block", func(http.ResponseWriter, *http.Request) { inside <- struct{}{}; <-release })
			mux.Handle("/", h)
			return guard.Wrap(mux)
		}})
		tok := e.Token(e.Owner, "api")
		if code, _ := e.DoToken(tok, "GET", "/api/v1/webhooks", nil); code != 200 {
			t.Fatalf("first read: %d", code)
		}
		if code, body := e.DoToken(tok, "GET", "/api/v1/webhooks", nil); code != 429 || !strings.Contains(body, `"code":"rate_limited"`) {
			t.Fatalf("over the limit: %d %s", code, body)
		}
		go func() {
			if resp, err := http.Get(e.URL + "/block"); err == nil {
				resp.Body.Close()
			}
		}()
		<-inside
		if code, body := e.Do(e.Other, "GET", "/api/v1/webhooks", nil); code != 503 || !strings.Contains(body, `"code":"unavailable"`) {
			t.Fatalf("overloaded: %d %s", code, body)
		}
		close(release)
	})
}
