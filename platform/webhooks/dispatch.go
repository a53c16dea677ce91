package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/safehttp"
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
		dialer.Control = safehttp.Policy{}.Control
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
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
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
}

// sendRequest is what one attempt sends, and to where.
type sendRequest struct {
	URL, Auth, Secret string
	Credentials       Credentials
	DeliveryID, Slug  string
	Body              []byte
	At                time.Time
}

// send makes one attempt. Its error is only ctx's (the job is being
// stopped): the attempt then does not count.
func (s *Service) send(ctx context.Context, in sendRequest) (sendResult, error) {
	res := sendResult{Body: in.Body}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.URL, bytes.NewReader(in.Body))
	if err != nil {
		res.Err = "invalid target URL: " + err.Error()
		return res, nil
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set("X-Kobana-Event", in.Slug)
	h.Set("X-Kobana-Delivery-Id", in.DeliveryID)
	h.Set("X-Kobana-Timestamp", strconv.FormatInt(in.At.Unix(), 10))
	h.Set("X-Kobana-Environment", s.cfg.Environment)
	h.Set(SignatureHeader, Sign(in.Secret, in.Body))
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

	start := time.Now()
	res.Sent = true
	resp, err := s.client.Do(req)
	if err != nil {
		res.Duration = time.Since(start)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Err, res.Retryable = describeTransportError(err, s.cfg.Timeout)
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
		res.Err += "; reading the response: " + readErr.Error()
	}
	return res, nil
}

// describeTransportError words a failed request for the delivery log and
// tells whether trying again may help: a refused destination will not,
// timeouts, connection, DNS and TLS errors may.
func describeTransportError(err error, timeout time.Duration) (string, bool) {
	if errors.Is(err, safehttp.ErrForbiddenAddress) {
		return "the target's address is not allowed (private, loopback or reserved networks are refused): " + err.Error(), false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer within %s: %v", timeout, err), true
	}
	return "the request failed: " + err.Error(), true
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
