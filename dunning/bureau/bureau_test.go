package bureau

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func startFake(t *testing.T) (*Fake, *Client) {
	t.Helper()
	f := NewFake([]byte("secret"))
	base, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f, NewClient(base, 200*time.Millisecond)
}

var req = Request{Reference: "cmd-1", Debtor: Debtor{Name: "Maria", Document: "52998224725"}, AmountCents: 12345, DueDate: "2026-02-20"}

// TestClientAgainstFake: a 503 is an error that may pass, a 422 a
// Refusal, a timeout an error that may pass; the same Idempotency-Key
// answers the first answer and registers nothing twice.
func TestClientAgainstFake(t *testing.T) {
	t.Parallel()
	f, c := startFake(t)
	ctx := context.Background()
	f.Set(func(f *Fake) { f.Unavailable = 1 })
	if _, err := c.Submit(ctx, "serasa", req); err == nil || errors.As(err, new(*Refusal)) {
		t.Fatalf("503: %v", err)
	}
	a, err := c.Submit(ctx, "serasa", req)
	if err != nil || a.Status != StatusConfirmed || a.Protocol == "" {
		t.Fatalf("submit: %+v %v", a, err)
	}
	again, err := c.Submit(ctx, "serasa", req)
	if err != nil || again != a || len(f.Records()) != 1 {
		t.Fatalf("retry: %+v %v, %d records", again, err, len(f.Records()))
	}
	f.Set(func(f *Fake) { f.Refuse["111"] = "documento inválido" })
	other := req
	other.Reference, other.Debtor.Document = "cmd-2", "111"
	var ref *Refusal
	if _, err := c.Submit(ctx, "spc", other); !errors.As(err, &ref) || ref.Reason != "documento inválido" {
		t.Fatalf("refusal: %v", err)
	}
	f.Set(func(f *Fake) { f.Latency = time.Second })
	other.Reference, other.Debtor.Document = "cmd-3", "222"
	if _, err := c.Submit(ctx, "quod", other); err == nil || errors.As(err, new(*Refusal)) {
		t.Fatalf("timeout: %v", err)
	}
	f.Set(func(f *Fake) { f.Latency = 0 })
	w, err := c.Withdraw(ctx, "serasa", a.Protocol, Withdrawal{Reference: "cmd-1", Reason: "paid"})
	if err != nil || w.Status != StatusRemoved || f.Records()[0].Status != StatusRemoved {
		t.Fatalf("withdraw: %+v %v", w, err)
	}
	if _, err := c.Withdraw(ctx, "serasa", "nope", Withdrawal{Reference: "cmd-9"}); !errors.As(err, &ref) {
		t.Fatalf("unknown protocol: %v", err)
	}
}

// TestLaterCallbackIsSigned: with Later, the answer is pending and the
// outcome arrives at the callback URL, signed; ReadCallback verifies it
// and refuses another secret's signature.
func TestLaterCallbackIsSigned(t *testing.T) {
	t.Parallel()
	got := make(chan Callback, 1)
	bad := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := new(bytes.Buffer)
		_, _ = body.ReadFrom(r.Body)
		r2 := r.Clone(r.Context())
		r2.Body = http.NoBody
		r.Body = httpBody(body.Bytes())
		cb, err := ReadCallback(r, []byte("secret"))
		if err != nil {
			w.WriteHeader(403)
			return
		}
		r2.Body = httpBody(body.Bytes())
		_, err = ReadCallback(r2, []byte("another"))
		bad <- err
		got <- cb
		w.WriteHeader(204)
	}))
	defer srv.Close()
	f, c := startFake(t)
	f.Set(func(f *Fake) { f.Later, f.CallbackDelay = true, 10*time.Millisecond })
	r := req
	r.CallbackURL = srv.URL + "/cb"
	a, err := c.Submit(context.Background(), Notary, r)
	if err != nil || a.Status != StatusPending {
		t.Fatalf("submit: %+v %v", a, err)
	}
	select {
	case cb := <-got:
		if cb.Status != StatusConfirmed || cb.Protocol != a.Protocol || cb.Reference != "cmd-1" {
			t.Fatalf("callback %+v", cb)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no callback")
	}
	if err := <-bad; !errors.Is(err, ErrBadSignature) {
		t.Fatalf("another secret: %v", err)
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

func httpBody(b []byte) readCloser { return readCloser{bytes.NewReader(b)} }
