// Package tracingtest receives the spans of a test's traced parts the way a
// collector would: an OTLP/HTTP receiver on loopback that decodes the real
// exporter's protobuf (ExportTraceServiceRequest), and a tracer provider
// whose OTLP exporter sends to it. Tests then read the spans back, follow
// parents and print the tree (docs/operating.md "Traces").
package tracingtest

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, its ids in hex as W3C trace context writes
// them and its attributes as text.
type Span struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Kind                      string // SERVER, CLIENT, INTERNAL, PRODUCER, CONSUMER
	Attrs                     map[string]string
	// Links are the span contexts linked, as "traceid/spanid".
	Links []string
	// Error is set when the span's status is an error, with its message.
	Error   bool
	Message string
	// Service is the resource's service.name.
	Service string
	Start   time.Time
}

// Collector is an OTLP/HTTP trace receiver on loopback.
type Collector struct {
	// URL is the receiver's base URL, for OTEL_EXPORTER_OTLP_ENDPOINT.
	URL      string
	mu       sync.Mutex
	spans    []Span
	requests int
	flush    []func(context.Context) error
}

// NewCollector starts a receiver that lives as long as the test.
func NewCollector(t testing.TB) *Collector {
	t.Helper()
	c := &Collector{}
	srv := httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

// serve decodes one export request, as a collector's OTLP/HTTP receiver
// does: POST /v1/traces, application/x-protobuf.
func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "unsupported content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Span
	for _, rs := range req.GetResourceSpans() {
		service := attrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				got = append(got, convert(s, service))
			}
		}
	}
	c.mu.Lock()
	c.spans = append(c.spans, got...)
	c.requests++
	c.mu.Unlock()
	resp, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(resp)
}

func convert(s *tracepb.Span, service string) Span {
	out := Span{
		TraceID: hex.EncodeToString(s.GetTraceId()),
		SpanID:  hex.EncodeToString(s.GetSpanId()),
		Name:    s.GetName(),
		Kind:    strings.TrimPrefix(s.GetKind().String(), "SPAN_KIND_"),
		Attrs:   attrs(s.GetAttributes()),
		Error:   s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
		Message: s.GetStatus().GetMessage(),
		Service: service,
		Start:   time.Unix(0, int64(s.GetStartTimeUnixNano())),
	}
	if p := s.GetParentSpanId(); len(p) > 0 {
		out.ParentID = hex.EncodeToString(p)
	}
	for _, l := range s.GetLinks() {
		out.Links = append(out.Links, hex.EncodeToString(l.GetTraceId())+"/"+hex.EncodeToString(l.GetSpanId()))
	}
	return out
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.GetKey()] = x.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.GetKey()] = fmt.Sprint(x.IntValue)
		case *commonpb.AnyValue_BoolValue:
			m[kv.GetKey()] = fmt.Sprint(x.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			m[kv.GetKey()] = fmt.Sprint(x.DoubleValue)
		default:
			m[kv.GetKey()] = v.String()
		}
	}
	return m
}

// Provider returns a tracer provider of the project's shape (a batching
// processor, the OTLP/HTTP exporter, sampling always on) exporting to c,
// shut down when the test ends. Spans flushes it before reading.
func (c *Collector) Provider(t testing.TB) *sdktrace.TracerProvider {
	t.Helper()
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(c.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(50*time.Millisecond)), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	c.mu.Lock()
	c.flush = append(c.flush, tp.ForceFlush)
	c.mu.Unlock()
	return tp
}

// Spans flushes the providers made by Provider and returns every span
// received so far, oldest first.
func (c *Collector) Spans(t testing.TB) []Span {
	t.Helper()
	c.mu.Lock()
	flush := append([]func(context.Context) error(nil), c.flush...)
	c.mu.Unlock()
	for _, f := range flush {
		if err := f(context.Background()); err != nil {
			t.Fatalf("flush spans: %v", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]Span(nil), c.spans...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// Requests is how many export requests arrived.
func (c *Collector) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// Wait reads the spans until match finds what it needs or timeout passes
// (spans of another process arrive when that process exports them).
func (c *Collector) Wait(t testing.TB, timeout time.Duration, match func([]Span) bool) []Span {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		spans := c.Spans(t)
		if match(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("spans never matched within %v; received:\n%s", timeout, Tree(spans))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Find returns the first span named name (a prefix when it ends in "*"),
// or fails the test.
func Find(t testing.TB, spans []Span, name string) Span {
	t.Helper()
	for _, s := range spans {
		if matches(s.Name, name) {
			return s
		}
	}
	t.Fatalf("no span %q in:\n%s", name, Tree(spans))
	return Span{}
}

// All returns every span named name (a prefix when it ends in "*").
func All(spans []Span, name string) []Span {
	var out []Span
	for _, s := range spans {
		if matches(s.Name, name) {
			out = append(out, s)
		}
	}
	return out
}

func matches(got, want string) bool {
	if p, ok := strings.CutSuffix(want, "*"); ok {
		return strings.HasPrefix(got, p)
	}
	return got == want
}

// InTrace returns the spans of one trace.
func InTrace(spans []Span, traceID string) []Span {
	var out []Span
	for _, s := range spans {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

// Ancestor tells whether a is s or one of its ancestors in spans.
func Ancestor(spans []Span, a, s Span) bool {
	byID := map[string]Span{}
	for _, x := range spans {
		byID[x.TraceID+"/"+x.SpanID] = x
	}
	for cur, ok := s, true; ok; cur, ok = byID[cur.TraceID+"/"+cur.ParentID] {
		if cur.TraceID == a.TraceID && cur.SpanID == a.SpanID {
			return true
		}
	}
	return false
}

// keyAttrs are the attributes Tree prints, when a span has them.
var keyAttrs = []string{
	"mcp.method.name", "gen_ai.tool.name", "gen_ai.operation.name", "gen_ai.prompt.name", "mcp.resource.uri",
	"mcp.protocol.version", "kobana.mcp.era", "jsonrpc.request.id", "error.type", "rpc.response.status_code",
	"http.route", "http.request.method", "http.response.status_code", "url.full", "server.address",
	"db.system.name", "db.query.text", "kind", "attempt", "queue",
	"kadu.execution.id", "inbox.email.id", "smtp.to.count", "gen_ai.request.model",
}

// Tree prints spans as an indented tree per trace: name, kind, the
// service where it changes, key attributes, the parent's id when it was
// not received (a remote parent), links, and errors.
func Tree(spans []Span) string {
	p := printer{children: map[string][]Span{}}
	have := map[string]bool{}
	for _, s := range spans {
		have[s.TraceID+"/"+s.SpanID] = true
	}
	var traces []string
	roots := map[string][]Span{}
	for _, s := range spans {
		if s.ParentID != "" && have[s.TraceID+"/"+s.ParentID] {
			p.children[s.TraceID+"/"+s.ParentID] = append(p.children[s.TraceID+"/"+s.ParentID], s)
			continue
		}
		if len(roots[s.TraceID]) == 0 {
			traces = append(traces, s.TraceID)
		}
		roots[s.TraceID] = append(roots[s.TraceID], s)
	}
	for _, id := range traces {
		fmt.Fprintf(&p.b, "trace %s\n", id)
		for _, r := range roots[id] {
			p.walk(r, 0, "")
		}
	}
	return p.b.String()
}

// printer writes Tree's lines.
type printer struct {
	b        strings.Builder
	children map[string][]Span
}

func (p *printer) walk(s Span, depth int, service string) {
	b := &p.b
	fmt.Fprintf(b, "%s%s [%s]", strings.Repeat("  ", depth+1), s.Name, s.Kind)
	if s.Service != service {
		fmt.Fprintf(b, " service=%s", s.Service)
	}
	for _, k := range keyAttrs {
		if v, ok := s.Attrs[k]; ok {
			if len(v) > 60 {
				v = v[:60] + "…"
			}
			fmt.Fprintf(b, " %s=%q", k, v)
		}
	}
	if depth == 0 && s.ParentID != "" {
		fmt.Fprintf(b, " parent=%s (remote)", s.ParentID)
	}
	for _, l := range s.Links {
		fmt.Fprintf(b, " link=%s", l)
	}
	if s.Error {
		fmt.Fprintf(b, " ERROR %q", s.Message)
	}
	b.WriteString("\n")
	for _, c := range p.children[s.TraceID+"/"+s.SpanID] {
		p.walk(c, depth+1, s.Service)
	}
}

// ExportTo is the tracer provider of a child process in a test (one that
// is not itself a test, so has no testing.TB): it exports each span to
// the collector at url as the span ends, under service.name service. The
// caller shuts it down.
func ExportTo(url, service string) (*sdktrace.TracerProvider, error) {
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(url+"/v1/traces"))
	if err != nil {
		return nil, err
	}
	return sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", service)))), nil
}
