package webhooks

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics count deliveries by outcome and time their attempts. The
// product is a constant label, so the Services of several products can
// register their collectors in one registry.
type metrics struct {
	deliveries *prometheus.CounterVec
	duration   prometheus.Histogram
}

func newMetricsFor(product string) *metrics {
	labels := prometheus.Labels{"product": product}
	return &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name:        "kobana_webhook_deliveries_total",
			Help:        "Webhook delivery attempts by outcome: success, retry (failed, will be retried), failed (given up, or not sendable) or unknown (the worker stopped while the request was in flight; retried like a failure, or given up when it was the last attempt).",
			ConstLabels: labels,
		}, []string{"outcome"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:        "kobana_webhook_delivery_duration_seconds",
			Help:        "Duration of webhook delivery attempts that reached the network, request to response body.",
			ConstLabels: labels,
			Buckets:     []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
	}
}

// observe counts one attempt; sent says whether it made a request, whose
// duration is then recorded.
func (m *metrics) observe(outcome string, d time.Duration, sent bool) {
	m.deliveries.WithLabelValues(outcome).Inc()
	if sent {
		m.duration.Observe(d.Seconds())
	}
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	m.deliveries.Describe(ch)
	m.duration.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	m.deliveries.Collect(ch)
	m.duration.Collect(ch)
}

// Collector is the service's Prometheus metrics, for the process to
// register in its registry (nothing is registered globally):
// kobana_webhook_deliveries_total{product,outcome} and
// kobana_webhook_delivery_duration_seconds{product}.
func (s *Service) Collector() prometheus.Collector { return s.metrics }
