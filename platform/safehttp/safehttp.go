// Package safehttp fetches documents from URLs that someone else chose —
// an OAuth client's metadata document, later a webhook target — without
// letting that someone reach what only the server can reach (SSRF): the
// loopback interface, private networks, link-local cloud metadata services.
//
// The check runs where it cannot be fooled by DNS: in the net.Dialer's
// Control function, which sees the address actually being connected to,
// after resolution and before the connect system call sends anything. A
// name that resolves to 10.0.0.1, or that resolves differently the second
// time (DNS rebinding), is refused there all the same. Proxies from the
// environment are never used (a proxy would connect on our behalf, out of
// the check's sight), redirects are never followed, and every fetch is
// bounded in time and size.
package safehttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/kobana/kobana-mcp/platform/tracing"
)

// ErrForbiddenAddress is wrapped by every refusal of a destination address.
var ErrForbiddenAddress = errors.New("safehttp: destination address not allowed")

// ErrTooLarge is returned when a body exceeds the size limit.
var ErrTooLarge = errors.New("safehttp: response body too large")

// specialPrefixes are ranges no fetch on behalf of a third party may
// reach, beyond what netip's predicates name: they are internal, reserved,
// or embed an IPv4 address a translator would forward to.
var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 (RFC 6052)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64 (RFC 8215)
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("fc00::/7"),        // unique local (also IsPrivate)
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// Policy says which destinations a client may connect to.
type Policy struct {
	// AllowLoopback lets the client reach 127.0.0.0/8 and ::1. It exists
	// for tests and local development only; never set it in production.
	AllowLoopback bool
}

// CheckAddr reports whether ip may be connected to under p. It refuses
// unspecified, loopback (unless allowed), private (RFC 1918, RFC 4193),
// link-local, multicast and the special ranges above. IPv4-mapped IPv6
// addresses are judged as the IPv4 address they carry.
func (p Policy) CheckAddr(ip netip.Addr) error {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return fmt.Errorf("%w: invalid address", ErrForbiddenAddress)
	case ip.IsUnspecified():
		return fmt.Errorf("%w: %s is unspecified", ErrForbiddenAddress, ip)
	case ip.IsLoopback():
		if p.AllowLoopback {
			return nil
		}
		return fmt.Errorf("%w: %s is loopback", ErrForbiddenAddress, ip)
	case ip.IsPrivate():
		return fmt.Errorf("%w: %s is private", ErrForbiddenAddress, ip)
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return fmt.Errorf("%w: %s is link-local", ErrForbiddenAddress, ip)
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return fmt.Errorf("%w: %s is multicast", ErrForbiddenAddress, ip)
	}
	for _, pre := range specialPrefixes {
		if pre.Contains(ip) {
			return fmt.Errorf("%w: %s is in the special range %s", ErrForbiddenAddress, ip, pre)
		}
	}
	return nil
}

// Control is a net.Dialer Control function enforcing p: it runs after the
// socket is created and before it connects, with the resolved address, so
// a refused destination never sees a packet.
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	switch network {
	case "tcp4", "tcp6", "tcp":
	default:
		return fmt.Errorf("%w: network %q", ErrForbiddenAddress, network)
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrForbiddenAddress, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %q is not an IP address", ErrForbiddenAddress, host)
	}
	if ip.Zone() != "" {
		return fmt.Errorf("%w: zoned address %s", ErrForbiddenAddress, ip)
	}
	return p.CheckAddr(ip)
}

// Options bound a Client.
type Options struct {
	Policy Policy
	// Timeout bounds a whole fetch, connection to last byte (default 5 s).
	Timeout time.Duration
	// MaxBytes bounds a response body (default 64 KiB).
	MaxBytes int64
}

// Client fetches small documents safely.
type Client struct {
	http     *http.Client
	maxBytes int64
}

// NewClient returns a client that connects only where o.Policy allows,
// ignores proxy settings, follows no redirect and gives up after
// o.Timeout.
func NewClient(o Options) *Client {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 10
	}
	dialer := &net.Dialer{Timeout: o.Timeout, Control: o.Policy.Control}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
		DisableCompression:     false,
	}
	return &Client{
		http: &http.Client{
			Transport: tracing.NewTransport(tr), // a CLIENT span inside a trace
			Timeout:   o.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		maxBytes: o.MaxBytes,
	}
}

// Response is a fetched document.
type Response struct {
	Body   []byte
	Header http.Header
}

// StatusError is a response that was not 200 OK (redirects included: they
// are not followed).
type StatusError struct{ Status int }

func (e *StatusError) Error() string { return fmt.Sprintf("safehttp: status %d", e.Status) }

// GetJSON fetches u, which must answer 200 with a JSON media type and a
// body within the size limit.
func (c *Client) GetJSON(ctx context.Context, u *url.URL) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kobana-mcp-authorization-server")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, &StatusError{Status: resp.StatusCode}
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil, fmt.Errorf("safehttp: content type %q is not JSON", resp.Header.Get("Content-Type"))
	}
	if resp.ContentLength > c.maxBytes {
		return nil, ErrTooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > c.maxBytes {
		return nil, ErrTooLarge
	}
	return &Response{Body: body, Header: resp.Header}, nil
}
