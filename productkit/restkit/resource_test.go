package restkit

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// routes answers each path with a status and a body, and records the
// queries it was asked.
type routes map[string]struct {
	status int
	body   string
}

func (r routes) bridge(asked *[]string) *restbridge.Bridge {
	return restbridge.New(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if asked != nil {
			*asked = append(*asked, req.URL.Path+"?"+req.URL.RawQuery)
		}
		a, ok := r[req.URL.Path]
		if !ok {
			a.status, a.body = http.StatusNotFound, `{"error":{"code":"NOT_FOUND","message":"no route"}}`
		}
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}), restbridge.Options{})
}

// A resource reads one route: its data beside the notice, in the route's
// order; 404 is the protocol's not-found, another refusal carries the
// API's message, and anything the route should not answer is internal.
func TestReadThrough(t *testing.T) {
	b := routes{
		"/v1/things/1":  {200, `{"data":{"z":1,"a":"<b>"}}`},
		"/v1/things/no": {403, `{"error":{"code":"FORBIDDEN","message":"needs things.read"}}`},
		"/v1/things/5":  {500, `{}`},
		"/v1/things/l":  {200, `{"data":[1]}`},
		"/v1/things/n":  {200, `{"data":null}`},
	}.bridge(nil)
	read := func(path string) (*mcp.ReadResourceResult, error) {
		req := &mcp.ReadResourceRequest{URI: "kobana://x/things/1"}
		return ReadThrough(context.Background(), b, req, path, "Third-party data.", "thing")
	}
	res, err := read("/v1/things/1")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"notice\": \"Third-party data.\",\n  \"thing\": {\n    \"z\": 1,\n    \"a\": \"<b>\"\n  }\n}"
	if len(res.Contents) != 1 || Deref(res.Contents[0].Text) != want || res.Contents[0].MimeType != "application/json" || res.Contents[0].URI != "kobana://x/things/1" {
		t.Fatalf("read: %+v", res.Contents)
	}
	if _, err := read("/v1/things/missing"); !errors.Is(err, mcp.ErrResourceNotFound) {
		t.Errorf("404: %v", err)
	}
	var me *mcp.Error
	if _, err := read("/v1/things/no"); !errors.As(err, &me) || me.Code != mcp.CodeInvalidParams || me.Message != "needs things.read" {
		t.Errorf("403: %v", err)
	}
	for _, path := range []string{"/v1/things/5", "/v1/things/l", "/v1/things/n"} {
		if _, err := read(path); !errors.As(err, &me) || me.Code != mcp.CodeInternalError {
			t.Errorf("%s: %v", path, err)
		}
	}
}
