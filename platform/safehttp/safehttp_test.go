package safehttp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestControlRefusesBeforeConnecting calls the dialer's Control function
// directly, as net.Dialer does after resolving and before connect(2): a
// refused address is never contacted. (Tests never dial a private
// address; this is how they show one would not be.)
func TestControlRefusesBeforeConnecting(t *testing.T) {
	t.Parallel()
	var p Policy
	refused := []string{
		"10.0.0.1:443", "10.255.255.255:80", "172.16.0.1:443", "192.168.1.1:443", "127.0.0.1:443", "127.1.2.3:8080",
		"169.254.169.254:80", "0.0.0.0:443", "224.0.0.1:443", "255.255.255.255:443", "100.64.0.1:443", "198.18.0.1:443",
		"[::1]:443", "[::]:443", "[fd00::1]:443", "[fe80::1]:443", "[ff02::1]:443", "[::ffff:10.0.0.1]:443",
		"[::ffff:127.0.0.1]:443", "[64:ff9b::a00:1]:443", "[2002:a00:1::]:443",
	}
	for _, addr := range refused {
		network := "tcp4"
		if strings.HasPrefix(addr, "[") {
			network = "tcp6"
		}
		if err := p.Control(network, addr, nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: %v, want refused", addr, err)
		}
	}
	for _, addr := range []string{"93.184.215.14:443", "8.8.8.8:443", "[2606:4700:4700::1111]:443"} {
		if err := p.Control("tcp", addr, nil); err != nil {
			t.Errorf("%s: %v, want allowed", addr, err)
		}
	}
	for _, bad := range [][2]string{{"udp4", "8.8.8.8:53"}, {"tcp", "example.com:443"}, {"tcp", "8.8.8.8"}, {"tcp6", "[fe80::1%eth0]:443"}} {
		if err := p.Control(bad[0], bad[1], nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%v: %v, want refused", bad, err)
		}
	}
	// The development policy opens loopback, and nothing else.
	dev := Policy{AllowLoopback: true}
	if err := dev.Control("tcp4", "127.0.0.1:80", nil); err != nil {
		t.Errorf("loopback under AllowLoopback: %v", err)
	}
	if err := dev.Control("tcp4", "10.0.0.1:80", nil); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("10.0.0.1 under AllowLoopback: %v", err)
	}
}

// TestDialerRunsControl checks that the client's dialer consults the
// policy: a loopback server is never reached.
func TestDialerRunsControl(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/doc")
	_, err := NewClient(Options{}).GetJSON(context.Background(), u)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("fetching from loopback: %v", err)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Fatalf("refusal not at dial: %#v", err)
	}
	if hits.Load() != 0 {
		t.Fatal("the loopback server was reached")
	}
}

func TestClientLimits(t *testing.T) {
	// Not parallel: t.Setenv changes the whole process's environment.
	// Proxies from the environment are never used: the fetch below would
	// otherwise go to this dead one.
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte(`{"a":1}`))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`"` + strings.Repeat("x", 2000) + `"`))
	})
	mux.HandleFunc("/big-chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for range 40 {
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Content-Type", "text/html") })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := NewClient(Options{Policy: Policy{AllowLoopback: true}, MaxBytes: 1000, Timeout: 300 * time.Millisecond})
	get := func(p string) (*Response, error) {
		u, _ := url.Parse(srv.URL + p)
		return c.GetJSON(context.Background(), u)
	}
	if r, err := get("/ok"); err != nil || string(r.Body) != `{"a":1}` {
		t.Fatalf("ok: %v %v", r, err)
	}
	for _, p := range []string{"/big", "/big-chunked"} {
		if _, err := get(p); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v", p, err)
		}
	}
	var se *StatusError
	if _, err := get("/redirect"); !errors.As(err, &se) || se.Status != http.StatusFound {
		t.Errorf("redirect followed: %v", err)
	}
	if _, err := get("/html"); err == nil {
		t.Error("text/html accepted")
	}
	start := time.Now()
	if _, err := get("/slow"); err == nil || time.Since(start) > time.Second {
		t.Errorf("slow server: %v after %v", err, time.Since(start))
	}
}
