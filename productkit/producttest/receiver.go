package producttest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Receiver is a webhook target on loopback that keeps every request it
// got and answers 200.
type Receiver struct {
	// URL is where webhooks should point.
	URL string
	mu  sync.Mutex
	got []Received
}

// Received is one request a Receiver got.
type Received struct {
	Header http.Header
	Body   []byte
}

// NewReceiver starts a receiver until the test ends.
func NewReceiver(t testing.TB) *Receiver {
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, Received{Header: req.Header.Clone(), Body: b})
		r.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hook"
	return r
}

// ByDelivery is the request the receiver got for a delivery id (its
// X-Kobana-Delivery-Id header).
func (r *Receiver) ByDelivery(id string) (Received, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.got {
		if g.Header.Get("X-Kobana-Delivery-Id") == id {
			return g, true
		}
	}
	return Received{}, false
}

// Count is how many requests the receiver got.
func (r *Receiver) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}
