package webhooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/safehttp"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// internal is an address a delivery error must never reveal: what a name
// resolved to inside the deployment (and the resolver it asked).
var internal = []string{"10.1.2.3", "10.0.0.53", "8443"}

// wrapped is a failed request as http.Client.Do returns it: a *url.Error
// around a dial error naming the resolved address.
func wrapped(err error) error {
	return &url.Error{Op: "Post", URL: "https://hooks.example.com/in", Err: err}
}

func dialErr(err error) error {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 8443}, Err: err}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout dialing 10.1.2.3:8443" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestTransportErrorsNeverNameAddresses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err       error
		want      string
		retryable bool
	}{
		{wrapped(dialErr(fmt.Errorf("%w: 10.1.2.3 is private", safehttp.ErrForbiddenAddress))), "the target address is not allowed", false},
		{wrapped(dialErr(os.NewSyscallError("connect", syscall.ECONNREFUSED))), "connection refused", true},
		{wrapped(dialErr(os.NewSyscallError("read", syscall.ECONNRESET))), "reset the connection", true},
		{wrapped(dialErr(os.NewSyscallError("connect", syscall.EHOSTUNREACH))), "unreachable", true},
		{wrapped(dialErr(timeoutErr{})), "timed out: no answer within 10s", true},
		{wrapped(&net.DNSError{Err: "no such host", Name: "hooks.example.com", Server: "10.0.0.53:53", IsNotFound: true}), "host name does not exist", true},
		{wrapped(&net.DNSError{Err: "server misbehaving", Name: "hooks.example.com", Server: "10.0.0.53:53"}), "could not be resolved", true},
		{wrapped(fmt.Errorf("read tcp 10.1.2.3:8443: %w", io.ErrUnexpectedEOF)), "closed the connection", true},
		{wrapped(errors.New("http2: stream error from 10.1.2.3:8443")), "the request failed", true},
	}
	for _, c := range cases {
		msg, retryable := describeTransportError(c.err, 10*time.Second)
		if !strings.Contains(msg, c.want) || retryable != c.retryable {
			t.Errorf("%v: %q (retryable %v), want %q (retryable %v)", c.err, msg, retryable, c.want, c.retryable)
		}
		for _, addr := range internal {
			if strings.Contains(msg, addr) {
				t.Errorf("%v: the message %q names %s", c.err, msg, addr)
			}
		}
	}
}

// Real failures against loopback targets (private targets allowed, as in
// development): the delivery says what went wrong, never the address.
func TestDeliveryErrorsSayWhatFailedWithoutTheAddress(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, nil, testConfig())
		tn := newTenant(t, db)

		closed, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closedAddr := closed.Addr().String()
		_ = closed.Close()
		untrusted := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
		t.Cleanup(untrusted.Close)
		plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
		t.Cleanup(plain.Close)

		for target, want := range map[string]string{
			"https://" + closedAddr + "/in":                               "connection refused",
			untrusted.URL + "/in":                                         "not signed by a trusted authority",
			"https://" + strings.TrimPrefix(plain.URL, "http://") + "/in": "did not answer in TLS",
		} {
			w, _ := hook(t, s, tn, target, "*")
			ev := emit(t, s, tn, "email.processed", "")
			var id string
			if err := db.Get(ctx, &id, `SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND system_event_id = ?`, w.ID, ev.ID); err != nil {
				t.Fatal(err)
			}
			res, err := s.attempt(ctx, deliveryArgs{DeliveryID: id, OrganizationID: tn.org, Product: "inbox"})
			if err != nil || res.Outcome != outcomeRetry {
				t.Fatalf("%s: %+v, %v; want a retry", target, res, err)
			}
			d, _ := s.GetDelivery(ctx, tn.org, tn.ws, w.ID, id)
			if d.Error == nil || !strings.Contains(*d.Error, want) {
				t.Errorf("%s: error %q, want %q", target, *d.Error, want)
				continue
			}
			u, _ := url.Parse(target)
			if strings.Contains(*d.Error, "127.0.0.1") || strings.Contains(*d.Error, u.Port()) {
				t.Errorf("%s: the error names the address: %s", target, *d.Error)
			}
		}
	})
}
