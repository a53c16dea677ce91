package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/rest"
)

// labelsAPI has a path parameter, query parameters and a body with
// strings at every depth: in a list, in objects in a list, in a free-form
// object's values and keys.
type labelItem struct {
	Label string `json:"label" maxLength:"20"`
}

type labelsIn struct {
	ID     string         `json:"id" in:"path"`
	Mode   string         `json:"mode,omitempty" in:"query"`
	Tags   []string       `json:"tags,omitempty"`
	Items  []labelItem    `json:"items,omitempty"`
	Meta   map[string]any `json:"meta,omitempty"`
	Title  string         `json:"title,omitempty"`
	DryRun bool           `json:"dry_run,omitempty" in:"query"`
}

type labelsFindIn struct {
	ID   string   `json:"id" in:"path"`
	Q    string   `json:"q,omitempty" in:"query"`
	Tags []string `json:"tags,omitempty" in:"query"`
}

func labelsAPI() *rest.API {
	a := rest.New(rest.Config{Title: "Labels", Version: "1", BasePath: "/api/v1"})
	rest.Handle(a, rest.Operation{ID: "labels_find", Method: "GET", Path: "/boards/{id}/labels", Title: "Find labels", Summary: "Finds labels.", Annotations: ro()},
		func(ctx context.Context, in *labelsFindIn) (*rest.Response, error) {
			return rest.OK(map[string]any{"data": in}), nil
		})
	rest.Handle(a, rest.Operation{ID: "labels_set", Method: "POST", Path: "/boards/{id}/labels", Title: "Set labels", Summary: "Sets labels.",
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}},
		func(ctx context.Context, in *labelsIn) (*rest.Response, error) {
			return rest.OK(map[string]any{"data": in}), nil
		})
	return a
}

// labelsServers serves the API over REST and its tools over MCP.
func labelsServers(t *testing.T) (api *rest.API, restURL, mcpURL string) {
	t.Helper()
	api = labelsAPI()
	h := mcp.MustNewHandler(mcp.Options{Name: "labels", Version: "1"}, mcp.Catalog{Tools: api.Tools(restbridge.New(api, restbridge.Options{}))})
	rs, ms := httptest.NewServer(api), httptest.NewServer(h)
	t.Cleanup(rs.Close)
	t.Cleanup(ms.Close)
	return api, rs.URL, ms.URL
}

// restRaw sends a REST request whose path and query are sent as written.
func restRaw(t *testing.T, base, method, pathAndQuery, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = pathAndQuery
	if i := strings.IndexByte(pathAndQuery, '?'); i >= 0 {
		req.URL.Opaque, req.URL.RawQuery = pathAndQuery[:i], pathAndQuery[i+1:]
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// toolRaw sends a tools/call whose arguments are written as raw JSON, and
// returns the JSON-RPC answer.
func toolRaw(t *testing.T, url, tool, args string) map[string]any {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func toolText(t *testing.T, out map[string]any) (string, bool) {
	t.Helper()
	res, ok := out["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", out)
	}
	isErr, _ := res["isError"].(bool)
	return res["content"].([]any)[0].(map[string]any)["text"].(string), isErr
}

// bridgeCall runs a tool's handler directly, as a product's own code may:
// arguments the MCP endpoint would refuse to parse reach the API.
func bridgeCall(t *testing.T, api *rest.API, tool, args string) (string, bool) {
	t.Helper()
	for _, tl := range api.Tools(restbridge.New(api, restbridge.Options{})) {
		if tl.Name == tool {
			res, err := tl.Handler(context.Background(), &mcp.CallToolRequest{Name: tool, Arguments: json.RawMessage(args)})
			if err != nil {
				t.Fatal(err)
			}
			return res.Content[0].Text, res.IsError
		}
	}
	t.Fatalf("no tool %s", tool)
	return "", false
}

const (
	nulMsg       = "must not contain the NUL character (U+0000)"
	surrogateMsg = `must not contain an unpaired UTF-16 surrogate escape (\\uD800-\\uDFFF)`
	utf8Msg      = "must be valid UTF-8"
)

func invalid(field, msg string) string {
	return `{"error":{"code":"validation_failed","message":"the request is invalid","details":[{"field":"` + field + `","message":"` + msg + `"}]}}`
}

// TestStringRule: a NUL character anywhere, an unpaired surrogate escape
// in a JSON string and invalid UTF-8 in path or query text are each a
// validation error naming the field, over REST and through the tool alike
// (the package documentation, "Strings"). Such text would be stored by one database and
// refused by the other, or silently changed.
func TestStringRule(t *testing.T) {
	t.Parallel()
	api, restURL, mcpURL := labelsServers(t)
	for _, c := range []struct {
		name                string
		method, target      string // REST request
		body                string
		tool, args          string // the same request as a tool call
		want                string // the answer, over REST and in the tool's text
		mcpRefusesToParse   bool   // the MCP endpoint answers -32700 before any tool runs
		restOnly, toolsOnly bool
	}{
		{name: "NUL in a path parameter", method: "GET", target: "/api/v1/boards/a%00b/labels",
			tool: "labels_find", args: `{"id":"a\u0000b"}`, want: invalid("id", nulMsg)},
		{name: "invalid UTF-8 in a path parameter", method: "GET", target: "/api/v1/boards/%ED%A0%80/labels",
			tool: "labels_find", args: `{"id":"\ud800"}`, want: invalid("id", utf8Msg), mcpRefusesToParse: true},
		{name: "NUL in a query parameter", method: "GET", target: "/api/v1/boards/b1/labels?q=x%00",
			tool: "labels_find", args: `{"id":"b1","q":"x\u0000"}`, want: invalid("q", nulMsg)},
		{name: "NUL in a query list item", method: "GET", target: "/api/v1/boards/b1/labels?tags=a,b%00",
			tool: "labels_find", args: `{"id":"b1","tags":["a","b\u0000"]}`, want: invalid("tags.1", nulMsg)},
		{name: "invalid UTF-8 in a query parameter", method: "GET", target: "/api/v1/boards/b1/labels?q=%FF",
			want: invalid("q", utf8Msg), restOnly: true},
		{name: "unpaired surrogate in a query argument", tool: "labels_find", args: `{"id":"b1","q":"\udc00"}`,
			want: invalid("q", surrogateMsg), mcpRefusesToParse: true, toolsOnly: true},
		{name: "NUL in a query parameter of a write", method: "POST", target: "/api/v1/boards/b1/labels?mode=a%00", body: `{}`,
			tool: "labels_set", args: `{"id":"b1","mode":"a\u0000"}`, want: invalid("mode", nulMsg)},
		{name: "NUL in a body string", method: "POST", target: "/api/v1/boards/b1/labels", body: `{"title":"x\u0000"}`,
			tool: "labels_set", args: `{"id":"b1","title":"x\u0000"}`, want: invalid("title", nulMsg)},
		{name: "unpaired high surrogate in a body string", method: "POST", target: "/api/v1/boards/b1/labels", body: `{"title":"\ud800"}`,
			tool: "labels_set", args: `{"id":"b1","title":"\ud800"}`, want: invalid("title", surrogateMsg), mcpRefusesToParse: true},
		{name: "high surrogate followed by no low one", method: "POST", target: "/api/v1/boards/b1/labels", body: `{"title":"\ud800\u0041"}`,
			tool: "labels_set", args: `{"id":"b1","title":"\ud800\u0041"}`, want: invalid("title", surrogateMsg), mcpRefusesToParse: true},
		{name: "NUL in a list", method: "POST", target: "/api/v1/boards/b1/labels", body: `{"tags":["ok","b\u0000"]}`,
			tool: "labels_set", args: `{"id":"b1","tags":["ok","b\u0000"]}`, want: invalid("tags.1", nulMsg)},
		{name: "unpaired low surrogate in an object in a list", method: "POST", target: "/api/v1/boards/b1/labels", body: `{"items":[{"label":"ok"},{"label":"a\udc00"}]}`,
			tool: "labels_set", args: `{"id":"b1","items":[{"label":"ok"},{"label":"a\udc00"}]}`, want: invalid("items.1.label", surrogateMsg), mcpRefusesToParse: true},
		{name: "NUL deep in a free-form object", method: "POST", target: "/api/v1/boards/b1/labels", body: `{"meta":{"k":[{"x":"\u0000"}]}}`,
			tool: "labels_set", args: `{"id":"b1","meta":{"k":[{"x":"\u0000"}]}}`, want: invalid("meta.k.0.x", nulMsg)},
		{name: "NUL in a free-form object's key", method: "POST", target: "/api/v1/boards/b1/labels", body: `{"meta":{"a\u0000":1}}`,
			tool: "labels_set", args: `{"id":"b1","meta":{"a\u0000":1}}`, want: invalid(`meta.a\u0000`, "key "+nulMsg)},
		{name: "unpaired surrogate in a nested key", method: "POST", target: "/api/v1/boards/b1/labels", body: `{"meta":{"o":{"\ud800":1}}}`,
			tool: "labels_set", args: `{"id":"b1","meta":{"o":{"\ud800":1}}}`, want: invalid("meta.o.\ufffd", "key "+surrogateMsg), mcpRefusesToParse: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !c.toolsOnly {
				code, body := restRaw(t, restURL, c.method, c.target, c.body)
				if code != http.StatusUnprocessableEntity || body != c.want {
					t.Errorf("REST: %d %s\nwant 422 %s", code, body, c.want)
				}
			}
			if c.restOnly {
				return
			}
			// The tool's own handler, through the bridge, answers as REST.
			if text, isErr := bridgeCall(t, api, c.tool, c.args); !isErr || text != c.want {
				t.Errorf("bridge: %v %s\nwant %s", isErr, text, c.want)
			}
			out := toolRaw(t, mcpURL, c.tool, c.args)
			if c.mcpRefusesToParse {
				// The MCP endpoint's own parse refuses such JSON first.
				if e, _ := out["error"].(map[string]any); e == nil || e["code"] != float64(-32700) {
					t.Errorf("tools/call: want a parse error, got %v", out)
				}
				return
			}
			if text, isErr := toolText(t, out); !isErr || text != c.want {
				t.Errorf("tools/call: %v %s\nwant %s", isErr, text, c.want)
			}
		})
	}
}

// Text that keeps to the rule goes through untouched: escapes, pairs of
// surrogates (an emoji), non-ASCII letters, in the path, the query and
// the body.
func TestStringRuleKeepsValidText(t *testing.T) {
	t.Parallel()
	_, restURL, mcpURL := labelsServers(t)
	code, body := restRaw(t, restURL, "POST", "/api/v1/boards/caf%C3%A9/labels?mode=n%C3%A3o", `{"title":"a\"\\\n\u00e9\ud83d\ude00","tags":["日本"],"meta":{"ключ":"значение"}}`)
	want := `{"data":{"id":"café","mode":"não","tags":["日本"],"meta":{"ключ":"значение"},"title":"a\"\\\né😀"}}`
	if code != 200 || body != want {
		t.Fatalf("REST: %d %s\nwant %s", code, body, want)
	}
	text, isErr := toolText(t, toolRaw(t, mcpURL, "labels_set", `{"id":"café","mode":"não","title":"a\"\\\n\u00e9\ud83d\ude00","tags":["日本"],"meta":{"ключ":"значение"}}`))
	if isErr || text != want {
		t.Fatalf("tools/call: %s\nwant %s", text, want)
	}
}

// The string rule answers in the product's error shape, with the API's own
// spelling of the validation code.
func TestStringRuleSpeaksTheProductsShape(t *testing.T) {
	t.Parallel()
	a := rest.New(rest.Config{BasePath: "/api", Errors: func(e *rest.Error) any {
		return map[string]any{"errors": []any{map[string]any{"code": strings.ToUpper(e.Code), "details": e.Details}}}
	}})
	rest.Handle(a, rest.Operation{ID: "labels_find", Method: "GET", Path: "/boards/{id}", Annotations: ro()},
		func(ctx context.Context, in *labelsFindIn) (*rest.Response, error) { return rest.OK(in), nil })
	srv := httptest.NewServer(a)
	defer srv.Close()
	code, body := restRaw(t, srv.URL, "GET", "/api/boards/b1?q=%00", "")
	if want := `{"errors":[{"code":"VALIDATION_FAILED","details":[{"field":"q","message":"` + nulMsg + `"}]}]}`; code != 422 || body != want {
		t.Fatalf("%d %s\nwant 422 %s", code, body, want)
	}
}
