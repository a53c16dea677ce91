package observe

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kobana/kobana-mcp/mcp"
)

// Metrics are the process's Prometheus metrics. Labels are bounded: the
// product, a route family, a status class, the MCP era and method (from a
// fixed set), the tool (from each product's catalog) and an outcome word.
type Metrics struct {
	registry      *prometheus.Registry
	httpRequests  *prometheus.CounterVec
	httpDuration  *prometheus.HistogramVec
	mcpRequests   *prometheus.CounterVec
	mcpDuration   *prometheus.HistogramVec
	rateLimited   *prometheus.CounterVec
	confirmations *prometheus.CounterVec

	// The children of each label set, found once and kept: WithLabelValues
	// builds a slice and hashes every label on each call, which the
	// request path need not pay (docs/performance.md, "Identity
	// read cache"). Label sets are bounded (see above), so are these.
	httpChildren sync.Map // httpKey → *httpChild
	mcpChildren  sync.Map // mcpKey → *mcpChild
}

type httpKey struct {
	product, route string
	class          int
}

type httpChild struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

type mcpKey struct{ product, era, method, tool, outcome string }

type mcpChild struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// knownMethods are the MCP methods that get their own label value; any
// other method a client sends is counted as "other".
var knownMethods = map[string]bool{
	"server/discover": true, "initialize": true, "ping": true, "tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"prompts/list": true, "prompts/get": true, "completion/complete": true, "": true,
}

// NewMetrics registers the metrics, with the Go runtime and process
// collectors, in a registry of their own.
func NewMetrics() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		registry: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kobana_http_requests_total", Help: "HTTP requests by product, route family and status class.",
		}, []string{"product", "route", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "kobana_http_request_duration_seconds", Help: "HTTP request latency by product and route family.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"product", "route"}),
		mcpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kobana_mcp_requests_total", Help: "MCP requests by product, era, method, tool and outcome (ok, tool_error, error, rate_limited, unavailable).",
		}, []string{"product", "era", "method", "tool", "outcome"}),
		mcpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "kobana_mcp_request_duration_seconds", Help: "MCP request latency by product and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"product", "method"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kobana_rate_limit_rejections_total", Help: "Requests refused with 429 by product and route family.",
		}, []string{"product", "route"}),
		confirmations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kobana_confirmations_total", Help: "Destructive-tool confirmations by product and outcome (asked, accepted, declined, unconfirmable).",
		}, []string{"product", "outcome"}),
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.mcpRequests, m.mcpDuration, m.rateLimited, m.confirmations)
	return m
}

// Registry is where further metrics (job queue, webhook deliveries) are
// registered by the parts that own them.
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

func (m *Metrics) observeHTTP(product, route string, status int, d time.Duration) {
	k := httpKey{product, route, status / 100}
	c, ok := m.httpChildren.Load(k)
	if !ok {
		c, _ = m.httpChildren.LoadOrStore(k, &httpChild{
			requests: m.httpRequests.WithLabelValues(product, route, statusClass(status)),
			duration: m.httpDuration.WithLabelValues(product, route),
		})
	}
	hc := c.(*httpChild)
	hc.requests.Inc()
	hc.duration.Observe(d.Seconds())
	if status == http.StatusTooManyRequests {
		m.rateLimited.WithLabelValues(product, route).Inc()
	}
}

func (m *Metrics) observeMCP(product string, o *mcp.Observation, status int, d time.Duration) {
	method := o.Method
	if !knownMethods[method] {
		method = "other"
	}
	if method == "" {
		method = "none"
	}
	era := o.Era
	if era == "" {
		era = "unknown"
	}
	outcome := o.Outcome()
	if o.ErrorCode == 0 && status >= 400 {
		// Answered before the handler read the body (401, 403, 405, 413).
		outcome = "http_" + strconv.Itoa(status)
	}
	k := mcpKey{product, era, method, o.Tool, outcome}
	c, ok := m.mcpChildren.Load(k)
	if !ok {
		c, _ = m.mcpChildren.LoadOrStore(k, &mcpChild{
			requests: m.mcpRequests.WithLabelValues(product, era, method, o.Tool, outcome),
			duration: m.mcpDuration.WithLabelValues(product, method),
		})
	}
	mc := c.(*mcpChild)
	mc.requests.Inc()
	mc.duration.Observe(d.Seconds())
	if o.Confirmation != "" {
		m.confirmations.WithLabelValues(product, o.Confirmation).Inc()
	}
}
