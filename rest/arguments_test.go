package rest

import (
	"context"
	encjson "encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// diffListIn is a read's input: every field in the query string.
type diffListIn struct {
	ID     string   `json:"id" in:"path"`
	Status string   `json:"status,omitempty" enum:"open,closed"`
	Limit  int      `json:"limit,omitempty" minimum:"1" maximum:"100"`
	Tags   []string `json:"tags,omitempty"`
	Levels []int    `json:"levels,omitempty" maxItems:"2"`
	Flag   bool     `json:"flag,omitempty"`
	Ratio  *float64 `json:"ratio,omitempty" minimum:"0"`
}

// echoAPI answers every call with its decoded input.
func echoAPI() *API {
	a := New(Config{BasePath: "/api", MaxBodyBytes: 1 << 20})
	an := mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	Handle(a, Operation{ID: "things_put", Method: "POST", Path: "/things/{id}", Annotations: an}, func(ctx context.Context, in *diffIn) (*Response, error) {
		return OK(in), nil
	})
	ro := an
	ro.ReadOnlyHint = mcp.Bool(true)
	Handle(a, Operation{ID: "things_list", Method: "GET", Path: "/things/{id}/list", Annotations: ro}, func(ctx context.Context, in *diffListIn) (*Response, error) {
		return OK(in), nil
	})
	return a
}

// The bridge's two ways of calling a route: the arguments object handed
// over (what API.Tools mirrors), and the query string and body built from
// it, which the API decodes as any REST request.
func bothWays(t testing.TB, a *API, b *restbridge.Bridge, tool string) (passed, built mcp.ToolHandler) {
	t.Helper()
	for _, tl := range a.Tools(b) {
		if tl.Name != tool {
			continue
		}
		var reg *registered
		for _, r := range a.ops {
			if r.op.ID == tool {
				reg = r
			}
		}
		var query []string
		if reg.op.Method == http.MethodPost {
			for _, name := range reg.input.order {
				if reg.input.location[name] == inQuery {
					query = append(query, name)
				}
			}
		}
		return tl.Handler, b.MustHandler(restbridge.Route{Method: reg.op.Method, Path: a.cfg.BasePath + reg.op.Path, Query: query})
	}
	t.Fatalf("no tool %s", tool)
	return nil, nil
}

func callBoth(t testing.TB, passed, built mcp.ToolHandler, args string) (string, string) {
	t.Helper()
	run := func(h mcp.ToolHandler) string {
		res, err := h(context.Background(), &mcp.CallToolRequest{Name: "x", Arguments: encjson.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := encjson.Marshal(res.Content)
		if res.IsError {
			return "error " + string(b)
		}
		return string(b)
	}
	return run(passed), run(built)
}

var argumentCases = []struct{ tool, args string }{
	{"things_put", `{"id":"a1","title":"ok"}`},
	{"things_put", `{"id":"a1","title":"ok","status":"open","limit":5,"tags":["a","b,c"],"levels":[1,"2"],"flag":true,"ratio":0.5}`},
	{"things_put", `{"id":"a1","title":"ok","status":"bogus","limit":0,"tags":"x,y","levels":"1,z","flag":"maybe","ratio":"2"}`},
	{"things_put", `{"id":"a1","title":"ok","limit":"7","flag":1,"status":5,"ratio":null,"tags":null,"levels":[]}`},
	{"things_put", `{"id":"a1","title":"ok","limit":[1,2],"status":["open","closed"],"tags":[["a"],["b"]]}`},
	{"things_put", `{"id":"toolongid","title":"","extra":1,"filters":[{"field":1}],"idempotency_key":"k"}`},
	{"things_put", `{"id":"a1"}`},
	{"things_put", `{"id":5,"title":"ok"}`},
	{"things_put", `{"title":"ok"}`},
	{"things_put", `{"id":{"x":1},"title":"ok"}`},
	{"things_put", `{"id":"../x","title":"ok"}`},
	{"things_put", `{"id":"a b/c","title":"ok","meta":{"k":[1,{"z":null}]},"any":"s","nested":{"name":"n"}}`},
	{"things_put", `{"id":"a1","title":"ok","idempotency_key":5}`},
	{"things_put", `{}`},
	{"things_list", `{"id":"a1"}`},
	{"things_list", `{"id":"a1","status":"open","limit":5,"tags":["a","b"],"levels":[1,2,3],"flag":false,"ratio":1e2}`},
	{"things_list", `{"id":"a1","colour":"red","limit":"abc","title":"x"}`},
	{"things_list", `{"id":"a1","limit":1.5,"ratio":-1,"flag":"yes","tags":[1,true]}`},
	{"things_list", `{"id":"a1","status":null,"tags":[]}`},
	{"things_list", `{"id":"a1","idempotency_key":"k"}`},
	// Numbers for numeric query parameters are read from their literal.
	{"things_list", `{"id":"a1","limit":1e2,"ratio":1e400}`},
	{"things_list", `{"id":"a1","limit":12345678901234567890,"ratio":-0.0}`},
	{"things_list", `{"id":"a1","limit":-0,"ratio":0.1}`},
	{"things_put", `{"id":"a1","title":"ok","limit":1e2,"ratio":1e400}`},
	{"things_put", `{"id":"a1","title":"ok","limit":101,"ratio":2.5e-3}`},
}

// TestArgumentsDecodeLikeTheirRequest: an operation reading a tool call's
// arguments object answers exactly as it answers the query string and
// body the bridge would otherwise build from them.
func TestArgumentsDecodeLikeTheirRequest(t *testing.T) {
	t.Parallel()
	a := echoAPI()
	b := restbridge.New(a, restbridge.Options{})
	for _, c := range argumentCases {
		passed, built := bothWays(t, a, b, c.tool)
		got, want := callBoth(t, passed, built, c.args)
		if got != want {
			t.Errorf("%s %s:\npassed: %s\nbuilt:  %s", c.tool, c.args, got, want)
		}
	}
}

func FuzzArgumentsDecodeLikeTheirRequest(f *testing.F) {
	for _, c := range argumentCases {
		f.Add(c.tool == "things_list", c.args)
	}
	a := echoAPI()
	b := restbridge.New(a, restbridge.Options{})
	put, putBuilt := bothWays(f, a, b, "things_put")
	list, listBuilt := bothWays(f, a, b, "things_list")
	f.Fuzz(func(t *testing.T, isList bool, args string) {
		if !argumentsTheMCPEndpointPasses(args) {
			return
		}
		passed, built, query := put, putBuilt, []string{"status", "limit", "tags", "levels", "flag", "ratio"}
		if isList {
			passed, built, query = list, listBuilt, nil
		}
		if queryHoldsAnObject(args, query) {
			return // a query string has no objects: refused by type, where the request built carried their JSON text
		}
		got, want := callBoth(t, passed, built, args)
		if got != want {
			t.Errorf("%v %s:\npassed: %s\nbuilt:  %s", isList, args, got, want)
		}
	})
}

// argumentsTheMCPEndpointPasses: an object of strict JSON (no duplicate
// names, no invalid UTF-8 or unpaired surrogates), as tools/call has.
func argumentsTheMCPEndpointPasses(args string) bool {
	v := jsontext.Value(args)
	return v.Kind() == '{' && v.IsValid()
}

func queryHoldsAnObject(args string, query []string) bool {
	var m map[string]encjson.RawMessage
	if encjson.Unmarshal([]byte(args), &m) != nil {
		return true
	}
	for name, v := range m {
		if name == "id" || name == "idempotency_key" {
			continue
		}
		isQuery := query == nil
		for _, q := range query {
			isQuery = isQuery || q == name
		}
		if isQuery && strings.Contains(string(v), "{") {
			return true
		}
	}
	return false
}

// TestToolCallsFingerprintLikeTheirRequest: an idempotency key sent with a
// tool call and the same request sent over REST share their fingerprint
// (so a REST retry of a tool call replays it), and other arguments change
// it.
func TestToolCallsFingerprintLikeTheirRequest(t *testing.T) {
	t.Parallel()
	var got []string
	capture := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		args := restbridge.ArgumentsFrom(r)
		if args == nil {
			t.Fatal("the bridge passed no arguments")
		}
		query, body, e := requestParts(r, args, 1<<20)
		if e != nil {
			t.Fatal(e)
		}
		if r.Header.Get("X-Idempotency-Key") != "k-1" {
			t.Fatalf("key header %q", r.Header.Get("X-Idempotency-Key"))
		}
		got = append(got, fingerprint(r, query, body, []string{"X-Workspace-Id"}))
	})
	b := restbridge.New(capture, restbridge.Options{ForwardHeaders: []string{"X-Workspace-Id"}})
	h := b.MustHandler(restbridge.Route{Method: "POST", Path: "/api/things/{id}", Query: []string{"status", "tags", "limit"}, PassArguments: true})
	for _, args := range []string{
		`{"id":"a b","idempotency_key":"k-1","title":"T","limit":5,"status":"open","tags":["x","y"],"meta":{"b":1,"a":[true]}}`,
		`{"meta":{"a":[true],"b":1},"tags":["x","y"],"title":"T","status":"open","id":"a b","limit":5,"idempotency_key":"k-1"}`,
		`{"id":"a b","idempotency_key":"k-1","title":"T","limit":6,"status":"open","tags":["x","y"],"meta":{"b":1,"a":[true]}}`,
	} {
		req := &mcp.CallToolRequest{Name: "things_put", Arguments: encjson.RawMessage(args)}
		req.Header = http.Header{"X-Workspace-Id": {"ws"}}
		if _, err := h(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	r := httptestRequest("POST", "/api/things/a%20b?status=open&tags=x&tags=y&limit=5", `{ "title": "T", "meta": {"a": [true], "b": 1} }`)
	r.Header.Set("X-Workspace-Id", "ws")
	query, body, e := requestParts(r, nil, 1<<20)
	if e != nil {
		t.Fatal(e)
	}
	overREST := fingerprint(r, query, body, []string{"X-Workspace-Id"})
	if len(got) != 3 || got[0] != overREST || got[1] != overREST || got[2] == overREST {
		t.Fatalf("fingerprints: tool calls %q, REST %q", got, overREST)
	}
}

func httptestRequest(method, target, body string) *http.Request {
	r, _ := http.NewRequest(method, target, strings.NewReader(body))
	return r
}
