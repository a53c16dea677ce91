package portal

import (
	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
)

// Service is the escalation's Service with the debtor page's limits.
type Service struct {
	*escalation.Service
	// limits counts the page's requests per client address and per link
	// (ratelimit.go).
	limits *ratelimit.Store
	// PerAddress and PerLink are the page's rates (DefaultPerAddress,
	// DefaultPerLink).
	PerAddress, PerLink ratelimit.Rate
}
