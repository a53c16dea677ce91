package tracing

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
)

// NewTransport wraps an outbound client's transport (webhook deliveries,
// Twilio, the model provider, the credit bureaus): a request made inside a
// recorded trace becomes a CLIENT span (otelhttp: method, URL without
// credentials, status) and carries traceparent to the server; any other
// request goes straight to base, so with tracing off the wrapper costs a
// context lookup and nothing more.
func NewTransport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{base: base, traced: otelhttp.NewTransport(base, otelhttp.WithPropagators(propagation.TraceContext{}))}
}

type transport struct {
	base   http.RoundTripper
	traced http.RoundTripper
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !Recording(r.Context()) {
		return t.base.RoundTrip(r)
	}
	// otelhttp takes the provider of the span in the request's context.
	return t.traced.RoundTrip(r)
}

// CloseIdleConnections closes base's idle connections, as
// http.Client.CloseIdleConnections expects of a transport.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
