package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/rest"
)

// meta is the 2026-07-28 envelope every benchmark request carries.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

// nopWriter is a ResponseWriter that keeps nothing, so a benchmark
// measures the handler and not a recorder.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *nopWriter) WriteHeader(int)             {}

// benchAPI answers GET /api/v1/emails/{id} with a small JSON document,
// like a REST handler whose own work is not what is being measured.
func benchAPI() http.Handler {
	mux := http.NewServeMux()
	body := []byte(`{"data":{"id":"0b7c","status":"processed","subject":"Boleto de novembro"}}`)
	mux.HandleFunc("GET /api/v1/emails/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	return mux
}

func benchHandler(b *testing.B, tools int) *mcp.Handler {
	api := benchAPI()
	bridge := restbridge.New(api, restbridge.Options{})
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"id": {Type: "string"}}, Required: []string{"id"}}
	var list []mcp.Tool
	for i := 0; i < tools; i++ {
		name := "emails_get"
		if i > 0 {
			name = "tool_" + strconv.Itoa(i)
		}
		list = append(list, mcp.Tool{
			Name: name, Title: "Get an e-mail", Description: "Gets one e-mail by id or external_id.",
			InputSchema: schema, SkipSchemaValidation: true,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
			Handler:     bridge.MustHandler(restbridge.Route{Method: "GET", Path: "/api/v1/emails/{id}"}),
		})
	}
	h, err := mcp.NewHandler(mcp.Options{Name: "bench", Version: "1", PageSize: 1000}, mcp.Catalog{Tools: list})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

func serveBench(b *testing.B, h http.Handler, method, name string, body []byte) {
	b.Helper()
	req := httptest.NewRequest("POST", "/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	w := &nopWriter{h: http.Header{}}
	rd := bytes.NewReader(body)
	req.Body = io.NopCloser(rd)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rd.Reset(body)
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

// BenchmarkToolsCallThroughBridge is a whole 2026-07-28 tools/call: gates,
// envelope, header checks, in-process REST dispatch and the encoded result.
func BenchmarkToolsCallThroughBridge(b *testing.B) {
	h := benchHandler(b, 1)
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"emails_get","arguments":{"id":"0b7c"},` + meta + `}}`)
	serveBench(b, h, "tools/call", "emails_get", body)
}

// BenchmarkRESTHandlerDirect is the same REST route called directly: the
// baseline the transport's overhead is measured against.
func BenchmarkRESTHandlerDirect(b *testing.B) {
	api := benchAPI()
	req := httptest.NewRequestWithContext(context.Background(), "GET", "/api/v1/emails/0b7c", nil)
	w := &nopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		api.ServeHTTP(w, req)
	}
}

// BenchmarkToolsList60 lists 60 tools, the size of a product catalog.
func BenchmarkToolsList60(b *testing.B) {
	h := benchHandler(b, 60)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`)
	serveBench(b, h, "tools/list", "", body)
}

// The benchmarks below go through the real rest.API: rest.New, rest.Handle
// with realistic input structs, the API's own validation and its encoded
// answer, as the products declare their operations (docs/architecture.md).

// benchListIn is the input of a list operation, like the Inbox's
// emails_list: five query filters with the constraints a product declares.
type benchListIn struct {
	Status  string `json:"status,omitempty" in:"query" enum:"received,approved,rejected,processing,processed,failed" jsonschema:"Only e-mails in this status."`
	InboxID string `json:"inbox_id,omitempty" in:"query" maxLength:"255" jsonschema:"Only e-mails of this inbox."`
	From    string `json:"from,omitempty" in:"query" maxLength:"254" jsonschema:"Only e-mails whose sender contains this text."`
	Limit   int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many per page."`
	Cursor  string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

// benchFilter is one screening rule, a nested object of the write's body.
type benchFilter struct {
	Field    string `json:"field" jsonschema:"What the rule looks at."`
	Operator string `json:"operator" jsonschema:"How the value is compared."`
	Value    string `json:"value" jsonschema:"The text to compare with."`
	Action   string `json:"action" jsonschema:"What a match does."`
}

// benchCreateIn is the input of a create operation with a large body, like
// the Inbox's inboxes_create: scalars, a list of strings, a list of
// objects and a free-form object.
type benchCreateIn struct {
	ExternalID        string         `json:"external_id,omitempty" maxLength:"255" jsonschema:"Your own id."`
	Label             string         `json:"label" minLength:"1" maxLength:"200" jsonschema:"The display name."`
	Status            string         `json:"status,omitempty" enum:"active,inactive" jsonschema:"active or inactive."`
	Instructions      string         `json:"instructions,omitempty" maxLength:"100000" jsonschema:"Free text."`
	AllowedRecipients []string       `json:"allowed_recipients,omitempty" jsonschema:"Who may send."`
	Filters           []benchFilter  `json:"filters,omitempty" jsonschema:"Screening rules."`
	AttachmentsMax    *int           `json:"attachments_max,omitempty" minimum:"0" maximum:"1000" jsonschema:"At most this many attachments."`
	CustomMetadata    map[string]any `json:"custom_metadata,omitempty" jsonschema:"Your own JSON object."`
}

type benchEmail struct {
	ID         string    `json:"id"`
	InboxID    string    `json:"inbox_id"`
	Status     string    `json:"status"`
	Subject    *string   `json:"subject"`
	From       string    `json:"from"`
	To         []string  `json:"to"`
	ReceivedAt time.Time `json:"received_at"`
}

type benchPage struct {
	Data []benchEmail `json:"data"`
	Meta struct {
		NextCursor *string `json:"next_cursor"`
	} `json:"meta"`
}

type benchCreated struct {
	Data struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	} `json:"data"`
}

// benchRESTAPI declares emails_list (GET, five query filters) and
// inboxes_create (POST, a JSON body) on a rest.API.
func benchRESTAPI() *rest.API {
	api := rest.New(rest.Config{Title: "Bench", Version: "1", BasePath: "/api/v1"})
	subject := "Boleto de novembro"
	page := benchPage{}
	for i := range 3 {
		page.Data = append(page.Data, benchEmail{ID: "0194-" + strconv.Itoa(i), InboxID: "inb_1", Status: "processed", Subject: &subject,
			From: "cobranca@fornecedor.example", To: []string{"financeiro@acme.example"}, ReceivedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)})
	}
	rest.Handle(api, rest.Operation{ID: "emails_list", Method: "GET", Path: "/emails", Title: "List e-mails", Summary: "Lists e-mails.",
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}},
		func(ctx context.Context, in *benchListIn) (*rest.Response, error) {
			return rest.OK(page), nil
		})
	rest.Handle(api, rest.Operation{ID: "inboxes_create", Method: "POST", Path: "/inboxes", Title: "Create an inbox", Summary: "Creates an inbox.",
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)}},
		func(ctx context.Context, in *benchCreateIn) (*rest.Response, error) {
			var out benchCreated
			out.Data.ID, out.Data.Label = "inb_2", in.Label
			return rest.Created(out), nil
		})
	return api
}

// mustAnswer serves one request outside the timed loop and fails the
// benchmark unless the answer is a success holding want: a benchmark of
// an error path would measure the wrong thing.
func mustAnswer(b *testing.B, h http.Handler, req *http.Request, body []byte, want string) {
	b.Helper()
	rec := httptest.NewRecorder()
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(body))
	h.ServeHTTP(rec, r)
	if rec.Code >= 300 || strings.Contains(rec.Body.String(), `"isError":true`) || !strings.Contains(rec.Body.String(), want) {
		b.Fatalf("the benchmarked request fails: %d %s", rec.Code, rec.Body.String())
	}
}

func mcpBenchRequest(name string) *http.Request {
	req := httptest.NewRequest("POST", "/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	return req
}

func benchRESTHandler(b *testing.B, indent string) *mcp.Handler {
	api := benchRESTAPI()
	h, err := mcp.NewHandler(mcp.Options{Name: "bench", Version: "1", TextIndent: indent}, mcp.Catalog{Tools: api.Tools(restbridge.New(api, restbridge.Options{}))})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

const benchListArgs = `{"status":"processed","inbox_id":"financeiro","from":"fornecedor.example","limit":50,"cursor":"eyJpZCI6IjAxOTQtMiJ9"}`

// benchCreateBody is a write's arguments of about 10 KB.
var benchCreateBody = func() []byte {
	in := map[string]any{
		"external_id": "financeiro", "label": "Financeiro", "status": "active", "attachments_max": 20,
		"instructions": strings.Repeat("Leia o boleto, confira o CNPJ do cedente e o valor. ", 60),
	}
	var rcpt []string
	for i := range 40 {
		rcpt = append(rcpt, "fornecedor"+strconv.Itoa(i)+"@cobranca.example")
	}
	in["allowed_recipients"] = rcpt
	var filters []map[string]string
	for i := range 40 {
		filters = append(filters, map[string]string{"field": "subject", "operator": "contains", "value": "newsletter semanal " + strconv.Itoa(i), "action": "reject"})
	}
	in["filters"] = filters
	in["custom_metadata"] = map[string]any{"erp": map[string]any{"system": "sap", "company_code": "1000", "cost_centers": []any{"100", "200", "300"}}, "owner": "ana@acme.example"}
	b, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	return b
}()

// BenchmarkRESTAPIToolsCallList is a whole tools/call of a read tool with
// five arguments, through the bridge into rest.API.
func BenchmarkRESTAPIToolsCallList(b *testing.B) {
	h := benchRESTHandler(b, "")
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"emails_list","arguments":` + benchListArgs + `,` + meta + `}}`)
	mustAnswer(b, h, mcpBenchRequest("emails_list"), body, `0194-2`)
	serveBench(b, h, "tools/call", "emails_list", body)
}

// BenchmarkRESTAPIToolsCallListIndented is the same call on a server that
// indents tool text (Dunning's mcp.Options.TextIndent).
func BenchmarkRESTAPIToolsCallListIndented(b *testing.B) {
	h := benchRESTHandler(b, "  ")
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"emails_list","arguments":` + benchListArgs + `,` + meta + `}}`)
	mustAnswer(b, h, mcpBenchRequest("emails_list"), body, `\n  \"data\": [`)
	serveBench(b, h, "tools/call", "emails_list", body)
}

// BenchmarkRESTAPIToolsCallCreate10KB is a whole tools/call of a write
// tool whose arguments are about 10 KB of JSON.
func BenchmarkRESTAPIToolsCallCreate10KB(b *testing.B) {
	h := benchRESTHandler(b, "")
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"inboxes_create","arguments":` + string(benchCreateBody) + `,` + meta + `}}`)
	mustAnswer(b, h, mcpBenchRequest("inboxes_create"), body, `inb_2`)
	serveBench(b, h, "tools/call", "inboxes_create", body)
}

// BenchmarkRESTAPIDirectList is the list route called directly over REST:
// the floor BenchmarkRESTAPIToolsCallList is measured against.
func BenchmarkRESTAPIDirectList(b *testing.B) {
	api := benchRESTAPI()
	req := httptest.NewRequest("GET", "/api/v1/emails?status=processed&inbox_id=financeiro&from=fornecedor.example&limit=50&cursor=eyJpZCI6IjAxOTQtMiJ9", nil)
	mustAnswer(b, api, req, nil, `0194-2`)
	w := &nopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		api.ServeHTTP(w, req)
	}
}

// BenchmarkRESTAPIDirectCreate10KB is the create route called directly over
// REST with the same 10 KB body.
func BenchmarkRESTAPIDirectCreate10KB(b *testing.B) {
	api := benchRESTAPI()
	req := httptest.NewRequest("POST", "/api/v1/inboxes", nil)
	req.Header.Set("Content-Type", "application/json")
	mustAnswer(b, api, req, benchCreateBody, `inb_2`)
	rd := bytes.NewReader(benchCreateBody)
	w := &nopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(benchCreateBody)
		req.Body = io.NopCloser(rd)
		clear(w.h)
		api.ServeHTTP(w, req)
	}
}
