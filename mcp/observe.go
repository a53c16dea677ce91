package mcp

import "context"

// Observation is what the handler learned about one request, for metrics
// and logs outside this package: middleware puts one in the request context
// with [WithObservation] and reads it after the handler returns. The mcp
// package itself records nothing anywhere.
type Observation struct {
	// Era is "2026" or "2025" once the envelope was read.
	Era string
	// Version is the protocol revision in use.
	Version string
	// Method is the JSON-RPC method ("" when the body was not a request).
	Method string
	// Tool is the tool of a tools/call.
	Tool string
	// ErrorCode is the JSON-RPC error code answered, 0 for a result.
	ErrorCode int
	// ToolError is set when a tool answered a result with isError.
	ToolError bool
	// Confirmation is the outcome of a destructive tool's confirmation:
	// "asked", "accepted", "declined", "refused" or "" when none.
	Confirmation string
}

type observationKey struct{}

// WithObservation returns ctx carrying o, for the handler to fill.
func WithObservation(ctx context.Context, o *Observation) context.Context {
	return context.WithValue(ctx, observationKey{}, o)
}

// ObservationFrom returns the observation in ctx, or nil.
func ObservationFrom(ctx context.Context) *Observation {
	o, _ := ctx.Value(observationKey{}).(*Observation)
	return o
}

// Outcome sums the observation up in one low-cardinality word for a
// metric label.
func (o *Observation) Outcome() string {
	switch {
	case o.ErrorCode == CodeRateLimited:
		return "rate_limited"
	case o.ErrorCode == CodeUnavailable:
		return "unavailable"
	case o.ErrorCode != 0:
		return "error"
	case o.ToolError:
		return "tool_error"
	}
	return "ok"
}
