package pixpsptest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestPSPRetriesUntil2xx: a call answered 500 and 401 is sent again —
// the same body, to the URL with "/pix" appended as a string, as PSPs do
// — until a 2xx; with attempts spent, the last answer is returned.
func TestPSPRetriesUntil2xx(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	answers := []int{500, 401, 200}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		var got struct{ Pix []Pix }
		if r.Method != http.MethodPost || r.URL.Path != "/hook" || r.URL.RawQuery != "secret=s/pix" ||
			r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &got) != nil || len(got.Pix) != 1 || got.Pix[0].Valor != "1.00" {
			t.Errorf("call %d: %s %s %s", n, r.Method, r.URL, body)
		}
		w.WriteHeader(answers[min(int(n)-1, len(answers)-1)])
	}))
	defer srv.Close()
	at := time.Date(2026, 3, 10, 14, 30, 0, 0, time.UTC)
	p := Pix{EndToEndID: EndToEndID("00360305", at, 7), Valor: "1.00", Horario: at.Format(time.RFC3339)}
	if p.EndToEndID != "E0036030520260310143000000000007" {
		t.Fatalf("end-to-end id %s", p.EndToEndID)
	}
	psp := &PSP{URL: srv.URL + "/hook?secret=s", Attempts: 2}
	if r, err := psp.Notify(context.Background(), p); err != nil || r.Status != 401 || r.Attempts != 2 {
		t.Fatalf("attempts spent: %+v %v", r, err)
	}
	psp.Attempts = 5
	if r, err := psp.Notify(context.Background(), p); err != nil || r.Status != 200 || r.Attempts != 1 || calls.Load() != 3 {
		t.Fatalf("until 2xx: %+v %v (%d calls)", r, err, calls.Load())
	}
}
