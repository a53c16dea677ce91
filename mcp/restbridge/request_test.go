package restbridge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// shape is what a handler can see of the request it serves, beyond the
// route's own values.
type shape struct {
	Proto, RemoteAddr, Host, RequestURI, Path, RawPath, Query, Body, Accept, ContentType string
	ProtoMajor, ProtoMinor                                                               int
	ContentLength                                                                        int64
	NilBody, InProcess, Describing                                                       bool
}

func shapeAPI(got *shape) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := shape{Proto: r.Proto, RemoteAddr: r.RemoteAddr, Host: r.Host, RequestURI: r.RequestURI,
			Path: r.URL.Path, RawPath: r.URL.RawPath, Query: r.URL.RawQuery, Accept: r.Header.Get("Accept"),
			ContentType: r.Header.Get("Content-Type"), ProtoMajor: r.ProtoMajor, ProtoMinor: r.ProtoMinor,
			ContentLength: r.ContentLength, NilBody: r.Body == nil, InProcess: restbridge.InProcess(r.Context()),
			Describing: restbridge.Describing(r.Context())}
		if r.Body != nil {
			b, _ := io.ReadAll(r.Body)
			s.Body = string(b)
			if err := r.Body.Close(); err != nil {
				s.Body += " close: " + err.Error()
			}
		}
		*got = s
		_, _ = io.WriteString(w, `{"confirm_message":"ok"}`)
	})
}

// TestInProcessRequestShape pins the request a handler receives, built
// without http.NewRequest: the same protocol, an empty host and request
// URI, the in-process address, a body that reads and closes (http.NoBody
// when there is none) and its length.
func TestInProcessRequestShape(t *testing.T) {
	t.Parallel()
	var got shape
	b := restbridge.New(shapeAPI(&got), restbridge.Options{})
	base := shape{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, RemoteAddr: "in-process", Accept: "application/json", InProcess: true}

	call(t, b, restbridge.Route{Method: "GET", Path: "/api/items/{id}"}, `{"id":"a/b","n":2}`, "")
	want := base
	want.Path, want.RawPath, want.Query = "/api/items/a/b", "/api/items/a%2Fb", "n=2"
	if got != want {
		t.Errorf("GET:\n got %+v\nwant %+v", got, want)
	}

	call(t, b, restbridge.Route{Method: "POST", Path: "/api/items"}, `{"name":"x"}`, "")
	want = base
	want.Path, want.Body, want.ContentLength, want.ContentType = "/api/items", `{"name":"x"}`, 12, "application/json"
	if got != want {
		t.Errorf("POST:\n got %+v\nwant %+v", got, want)
	}

	status, _ := b.Get(context.Background(), nil, "/api/items", nil)
	want = base
	want.Path, want.RawPath = "/api/items", "/api/items"
	if status != http.StatusOK || got != want {
		t.Errorf("Get: %d\n got %+v\nwant %+v", status, got, want)
	}
}

// TestDescribingReachesNestedReads: a read made inside a describing
// request (a resource its handler reads) is describing too, as the
// context it is made with says.
func TestDescribingReachesNestedReads(t *testing.T) {
	t.Parallel()
	var got shape
	b := restbridge.New(shapeAPI(&got), restbridge.Options{})
	var nested shape
	outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !restbridge.Describing(r.Context()) {
			t.Error("the describing request is not describing")
		}
		b.Get(r.Context(), nil, "/api/items", nil)
		nested = got
		_, _ = io.WriteString(w, `{"confirm_message":"ok"}`)
	})
	d := restbridge.New(outer, restbridge.Options{}).MustDescriber(restbridge.Route{Method: "DELETE", Path: "/api/items/{id}"})
	msg, res, err := d(context.Background(), &mcp.CallToolRequest{Name: "t", Arguments: json.RawMessage(`{"id":"x"}`)})
	if err != nil || res != nil || msg != "ok" {
		t.Fatalf("describe: %q %+v %v", msg, res, err)
	}
	if !nested.Describing || !nested.InProcess {
		t.Fatalf("nested read: %+v", nested)
	}
	b.Get(context.Background(), nil, "/api/items", nil)
	if got.Describing {
		t.Fatal("a read outside any describing request is describing")
	}
}

// TestRouteMethodCheckedOnce: a method net/http would refuse fails the
// route when it is mirrored, not every call.
func TestRouteMethodCheckedOnce(t *testing.T) {
	t.Parallel()
	b := restbridge.New(http.NotFoundHandler(), restbridge.Options{})
	if _, err := b.Handler(restbridge.Route{Method: "GE T", Path: "/api/items"}); err == nil {
		t.Fatal("an invalid method was accepted")
	}
	if _, err := b.Describer(restbridge.Route{Method: "GE T", Path: "/api/items"}); err == nil {
		t.Fatal("an invalid method was accepted")
	}
}
