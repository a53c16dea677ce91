package bureau

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Fake is a provider of the protocol (doc.go) in this process: every
// bureau and the notary at once, keeping its records in memory. The tests
// drive it (failures, latency, confirmations that come later by
// callback); the embedded default serves it on a loopback listener so a
// report works with nothing installed. It is never a stand-in for our own
// code: it is the other side of the wire.
type Fake struct {
	secret []byte
	client *http.Client

	mu sync.Mutex
	// Unavailable makes the next this many requests answer 503.
	Unavailable int
	// Latency delays every answer (a client timeout shorter than it sees
	// a timeout).
	Latency time.Duration
	// Later answers "pending" and posts the outcome to the callback URL
	// after CallbackDelay.
	Later         bool
	CallbackDelay time.Duration
	// Refuse answers 422 with the reason for a debtor document it names.
	Refuse map[string]string

	byKey    map[string]fakeAnswer
	records  map[string]*Record
	requests int
	next     int
	wg       sync.WaitGroup
	closed   bool
	done     chan struct{}
	srv      *http.Server
}

type fakeAnswer struct {
	code int
	body []byte
}

// Record is what the provider holds about one debt.
type Record struct {
	Protocol  string
	Bureau    string
	Reference string
	Request   Request
	Status    string
	// Withdrawal is the removal or cancellation asked for, if any.
	Withdrawal *Withdrawal
}

// NewFake is a Fake whose callbacks are signed with secret.
func NewFake(secret []byte) *Fake {
	return &Fake{secret: secret, client: &http.Client{Timeout: 10 * time.Second},
		byKey: map[string]fakeAnswer{}, records: map[string]*Record{}, Refuse: map[string]string{}, done: make(chan struct{})}
}

// Set changes the Fake's behaviour under its lock.
func (f *Fake) Set(change func(f *Fake)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

// Requests is how many requests reached it (retries included).
func (f *Fake) Requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// Records are its records, by protocol order.
func (f *Fake) Records() []Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Record, 0, len(f.records))
	for _, r := range f.records {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Protocol, b.Protocol) })
	return out
}

// Start serves the Fake on a new loopback listener (127.0.0.1:0) and
// answers its base URL.
func (f *Fake) Start() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	f.srv = &http.Server{Handler: f, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Close stops the listener and waits for the callbacks on their way.
func (f *Fake) Close() error {
	f.mu.Lock()
	if !f.closed {
		f.closed = true
		close(f.done)
	}
	f.mu.Unlock()
	var err error
	if f.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = f.srv.Shutdown(ctx)
		cancel()
	}
	f.wg.Wait()
	return err
}

// ServeHTTP answers the protocol.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	latency := f.Latency
	unavailable := f.Unavailable > 0
	if unavailable {
		f.Unavailable--
	}
	f.mu.Unlock()
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
	}
	if unavailable {
		http.Error(w, `{"error":"temporarily unavailable"}`, http.StatusServiceUnavailable)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	f.mu.Lock()
	if a, ok := f.byKey[key]; ok && key != "" {
		f.mu.Unlock()
		writeRaw(w, a.code, a.body)
		return
	}
	f.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var code int
	var body any
	switch {
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "bureaus" && parts[2] == "reports" && slices.Contains(Bureaus, parts[1]):
		code, body = f.submit(r, parts[1])
	case r.Method == http.MethodDelete && len(parts) == 4 && parts[0] == "bureaus" && parts[2] == "reports":
		code, body = f.withdraw(r, parts[3], StatusRemoved)
	case r.Method == http.MethodPost && len(parts) == 2 && parts[0] == "notary" && parts[1] == "protests":
		code, body = f.submit(r, Notary)
	case r.Method == http.MethodPost && len(parts) == 4 && parts[0] == "notary" && parts[3] == "cancel":
		code, body = f.withdraw(r, parts[2], StatusCanceled)
	default:
		code, body = http.StatusNotFound, map[string]string{"error": "no such route"}
	}
	raw, _ := json.Marshal(body)
	f.mu.Lock()
	if key != "" && code < 500 {
		f.byKey[key] = fakeAnswer{code, raw}
	}
	f.mu.Unlock()
	writeRaw(w, code, raw)
}

func writeRaw(w http.ResponseWriter, code int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func (f *Fake) submit(r *http.Request, bureau string) (int, any) {
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Reference == "" || req.Debtor.Document == "" || req.AmountCents <= 0 {
		return http.StatusUnprocessableEntity, map[string]string{"error": "a request needs reference, debtor.document and a positive amount_cents"}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if why, ok := f.Refuse[req.Debtor.Document]; ok {
		return http.StatusUnprocessableEntity, map[string]string{"error": why}
	}
	f.next++
	rec := &Record{Protocol: fmt.Sprintf("%s-%06d", bureau, f.next), Bureau: bureau, Reference: req.Reference, Request: req, Status: StatusConfirmed}
	f.records[rec.Protocol] = rec
	if f.Later {
		rec.Status = StatusPending
		f.later(req.CallbackURL, Callback{Reference: req.Reference, Protocol: rec.Protocol, Status: StatusConfirmed}, func() { rec.Status = StatusConfirmed })
		return http.StatusAccepted, Answer{Protocol: rec.Protocol, Status: StatusPending}
	}
	return http.StatusCreated, Answer{Protocol: rec.Protocol, Status: StatusConfirmed}
}

func (f *Fake) withdraw(r *http.Request, protocol, done string) (int, any) {
	var wd Withdrawal
	_ = json.NewDecoder(r.Body).Decode(&wd)
	f.mu.Lock()
	defer f.mu.Unlock()
	rec, ok := f.records[protocol]
	if !ok {
		return http.StatusNotFound, map[string]string{"error": "no record with protocol " + protocol}
	}
	rec.Withdrawal = &wd
	if f.Later {
		f.later(wd.CallbackURL, Callback{Reference: wd.Reference, Protocol: protocol, Status: done}, func() { rec.Status = done })
		return http.StatusAccepted, Answer{Protocol: protocol, Status: StatusPending}
	}
	rec.Status = done
	return http.StatusOK, Answer{Protocol: protocol, Status: done}
}

// later posts cb to url after the callback delay, signed, retrying a few
// times; apply runs under the lock once it was delivered. Called with
// f.mu held.
func (f *Fake) later(url string, cb Callback, apply func()) {
	if url == "" || f.closed {
		return
	}
	delay := f.CallbackDelay
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		select {
		case <-time.After(delay):
		case <-f.done:
			return
		}
		body, _ := json.Marshal(cb)
		for attempt := 0; attempt < 5; attempt++ {
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(SignatureHeader, Sign(f.secret, body))
			resp, err := f.client.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode < 300 {
					f.mu.Lock()
					apply()
					f.mu.Unlock()
					return
				}
			}
			time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
		}
	}()
}
