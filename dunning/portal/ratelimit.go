package portal

import (
	"net"
	"net/http"

	"github.com/kobana/kobana-mcp/platform/ratelimit"
)

// The page's rate limits: per client address, so one host cannot walk
// through guessed links, and per link, so a link leaked to a crawler
// cannot be hammered. Both count every request, a link that does not
// open the page included, in this process's memory (each replica allows
// the rate on its own: a guard against floods, as the limit on
// unauthenticated traffic is — platform/ratelimit's unauthenticated.go).
var (
	DefaultPerAddress = ratelimit.MustParseRate("300-M")
	DefaultPerLink    = ratelimit.MustParseRate("60-M")
)

// allow counts r against its address and its link token; false when
// either is over its rate.
func (s *Service) allow(r *http.Request, token string) bool {
	ctx := r.Context()
	a, err1 := s.limits.Take(ctx, "portal:addr:"+clientAddress(r), s.PerAddress)
	l, err2 := s.limits.Take(ctx, "portal:link:"+ratelimit.HashKey(token), s.PerLink)
	if err1 != nil || err2 != nil {
		return true // the memory store does not fail; never lock debtors out on an error
	}
	return !a.Reached && !l.Reached
}

// clientAddress is the connection's peer, IPv6 cut to its /64 (as the
// limit on unauthenticated traffic counts).
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}
