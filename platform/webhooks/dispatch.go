package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kobana/kobana-mcp/platform/safehttp"
	"github.com/kobana/kobana-mcp/platform/tracing"
)

// UserAgent identifies deliveries to their receivers.
const UserAgent = "Kobana-Webhooks/1.0"

// maxCapturedBody bounds the response body kept with a delivery.
const maxCapturedBody = 64 << 10

// masked replaces credentials in captured request headers.
const masked = "********"

// newClient is the HTTP client of deliveries: it connects only where the
// SSRF policy allows (checked on the address actually dialled, after DNS)
// unless private targets are allowed, never through a proxy from the
// environment, follows no redirect, and bounds each attempt by timeout.
func newClient(timeout time.Duration, allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = controlTarget
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
	}
	return &http.Client{
		// A delivery made inside a trace is a CLIENT span and carries
		// traceparent (platform/tracing).
		Transport: tracing.NewTransport(tr),
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// controlTarget is the delivery dialer's check of the address actually
// dialled: the SSRF policy, plus the cloud metadata addresses it cannot
// tell from public ones (metadataAddrs).
func controlTarget(network, address string, c syscall.RawConn) error {
	if err := (safehttp.Policy{}).Control(network, address, c); err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(address)
	if ip, err := netip.ParseAddr(host); err == nil && isMetadataAddr(ip) {
		return fmt.Errorf("%w: %s is a cloud metadata address", safehttp.ErrForbiddenAddress, ip)
	}
	return nil
}

// deliveredBody is what a delivery sends: the stored envelope plus the
// delivery's own members, built again for every attempt.
type deliveredBody struct {
	Event       json.RawMessage `json:"event"`
	Delivery    deliveryRef     `json:"delivery"`
	CreatedAt   json.RawMessage `json:"created_at"`
	DeliveredAt time.Time       `json:"delivered_at"`
	WorkspaceID json.RawMessage `json:"workspace_id"`
	Data        json.RawMessage `json:"data"`
}

type deliveryRef struct {
	ID      string `json:"id"`
	Attempt int    `json:"attempt"`
}

// deliveryBody builds the body of one attempt from an event's payload.
func deliveryBody(payload []byte, deliveryID string, attempt int, at time.Time) ([]byte, error) {
	var b deliveredBody
	if err := json.Unmarshal(payload, &b); err != nil {
		return nil, fmt.Errorf("webhooks: stored event payload: %w", err)
	}
	b.Delivery = deliveryRef{ID: deliveryID, Attempt: attempt}
	b.DeliveredAt = at
	return json.Marshal(b)
}

// sendResult is one attempt as captured.
type sendResult struct {
	RequestHeaders  map[string]string
	Body            []byte
	Status          *int
	ResponseHeaders map[string]string
	ResponseBody    *string
	Err             string // "" when the target answered 2xx
	Success         bool
	Retryable       bool
	// Sent: a request was made (or its connection attempted).
	Sent     bool
	Duration time.Duration
	// Unknown: the request was started and whether the target got it is
	// not known (the worker stopped while it was in flight).
	Unknown bool
}

// sendRequest is what one attempt sends, and to where.
type sendRequest struct {
	URL, Auth, Secret string
	// Previous is the secret rotated out, still in its grace period
	// ("" when none): it signs beside Secret.
	Previous         string
	Credentials      Credentials
	DeliveryID, Slug string
	Body             []byte
	At               time.Time
}

// prepare builds one attempt's request and captures its headers (with
// the credentials masked) in the result. A nil request means nothing can
// be sent; the result says why.
func (s *Service) prepare(ctx context.Context, in sendRequest) (*http.Request, sendResult) {
	res := sendResult{Body: in.Body, RequestHeaders: map[string]string{}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.URL, bytes.NewReader(in.Body))
	if err != nil {
		res.Err = "invalid target URL; nothing was sent"
		return nil, res
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set("X-Kobana-Event", in.Slug)
	h.Set("X-Kobana-Delivery-Id", in.DeliveryID)
	h.Set("X-Kobana-Timestamp", strconv.FormatInt(in.At.Unix(), 10))
	h.Set("X-Kobana-Environment", s.cfg.Environment)
	h.Set(SignatureHeader, signWith(in.Secret, in.Previous, in.Body))
	secretHeader := ""
	switch in.Auth {
	case AuthBasic:
		req.SetBasicAuth(in.Credentials.Username, in.Credentials.Password)
		secretHeader = "Authorization"
	case AuthBearer:
		h.Set("Authorization", "Bearer "+in.Credentials.Token)
		secretHeader = "Authorization"
	case AuthHeader:
		h.Set(in.Credentials.HeaderName, in.Credentials.HeaderValue)
		secretHeader = http.CanonicalHeaderKey(in.Credentials.HeaderName)
	}
	res.RequestHeaders = flatten(h)
	if secretHeader != "" {
		res.RequestHeaders[secretHeader] = maskAuth(in.Auth, res.RequestHeaders[secretHeader])
	}
	return req, res
}

// do sends a prepared attempt and captures the answer in res. Its error
// is only the request context's (the job was stopped or ran out of time):
// whether the target got the request is then unknown.
func (s *Service) do(ctx context.Context, req *http.Request, res sendResult) (sendResult, error) {
	start := time.Now()
	res.Sent = true
	resp, err := s.client.Do(req)
	if err != nil {
		res.Duration = time.Since(start)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Err, res.Retryable = describeTransportError(err, s.cfg.Timeout)
		// The error itself names the address the host resolved to: for the
		// operator's log only, never for the delivery a tenant reads.
		s.log.Info("webhooks: delivery request failed", "delivery_id", req.Header.Get("X-Kobana-Delivery-Id"), "err", err)
		return res, nil
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxCapturedBody))
	_ = resp.Body.Close()
	res.Duration = time.Since(start)
	status := resp.StatusCode
	res.Status = &status
	res.ResponseHeaders = flatten(resp.Header)
	text := clean(string(body))
	res.ResponseBody = &text
	switch {
	case status >= 200 && status < 300:
		res.Success = true
	case status >= 300 && status < 400:
		res.Err = fmt.Sprintf("the target answered %d %s (redirect to %q); redirects are not followed: point the webhook at the final URL",
			status, http.StatusText(status), resp.Header.Get("Location"))
	default:
		res.Err = fmt.Sprintf("the target answered %d %s", status, http.StatusText(status))
		res.Retryable = status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
	}
	if readErr != nil && !res.Success && res.Err != "" {
		res.Err += "; reading the rest of the response failed"
	}
	return res, nil
}

// describeTransportError words a failed request for the delivery, which
// the tenant reads, and tells whether trying again may help: a refused
// destination will not; timeouts, connection, DNS and TLS errors may.
//
// It never repeats the error's text: Go's errors name the address the
// host resolved to (dial tcp 10.0.0.7:443: connect: connection refused),
// and a delivery must not tell a tenant what names resolve to inside the
// deployment. The words say what kind of failure it was, which is what
// the receiver's owner needs to fix it.
func describeTransportError(err error, timeout time.Duration) (string, bool) {
	var (
		dnsErr     *net.DNSError
		ne         net.Error
		hostErr    x509.HostnameError
		authErr    x509.UnknownAuthorityError
		invalidErr x509.CertificateInvalidError
		verifyErr  *tls.CertificateVerificationError
		recordErr  tls.RecordHeaderError
		alertErr   tls.AlertError
	)
	switch {
	case errors.Is(err, safehttp.ErrForbiddenAddress):
		return "the target address is not allowed: deliveries reach only public internet addresses (private, loopback, link-local and reserved networks are refused); nothing was sent", false
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "the target's host name does not exist (DNS: no such host)", true
		}
		return "the target's host name could not be resolved (DNS failure)", true
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("timed out: no answer within %s", timeout), true
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens on the target's port", true
	case errors.Is(err, syscall.ECONNRESET):
		return "the target reset the connection", true
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "the target is unreachable (no route to it)", true
	case errors.As(err, &hostErr):
		return "TLS: the target's certificate is not valid for its host name", true
	case errors.As(err, &authErr):
		return "TLS: the target's certificate is not signed by a trusted authority", true
	case errors.As(err, &invalidErr):
		return "TLS: the target's certificate is invalid or expired", true
	case errors.As(err, &verifyErr):
		return "TLS: the target's certificate could not be verified", true
	case errors.As(err, &recordErr), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http words the second case with a plain error of its own.
		return "TLS: the target did not answer in TLS (does it serve plain http on this port?)", true
	case errors.As(err, &alertErr):
		return "TLS: the target refused the handshake", true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the target closed the connection without answering", true
	}
	return "the request failed (a connection or protocol error)", true
}

// flatten turns a header into the one-value-per-name map a delivery keeps,
// joining repeated values with ", ".
func flatten(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		out[k] = clean(strings.Join(vs, ", "))
	}
	return out
}

// maskAuth hides a credential in a captured header, keeping its scheme.
func maskAuth(auth, v string) string {
	if auth == AuthBasic || auth == AuthBearer {
		if scheme, _, ok := strings.Cut(v, " "); ok {
			return scheme + " " + masked
		}
	}
	return masked
}

// clean makes text from a third party storable on both engines: valid
// UTF-8 without NUL bytes (PostgreSQL's text refuses both).
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}
