package rest_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/rest"
)

type pingIn struct{}

func ping(context.Context, *pingIn) (*rest.Response, error) { return rest.OK("pong"), nil }

func pingRaw(http.ResponseWriter, *http.Request) {}

func pingTyped(context.Context, *pingIn) (*rest.Response, error) { return nil, nil }

// pc is where a function value's code is, to compare function values.
func pc(f any) uintptr { return reflect.ValueOf(f).Pointer() }

// Implementation is the function a declaration was given, not the
// wrappers the API builds around it; SetImplementation overrides it for
// an adapter.
func TestImplementationIsTheDeclaredHandler(t *testing.T) {
	an := mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	a := rest.New(rest.Config{BasePath: "/v1"})
	rest.Handle(a, rest.Operation{ID: "ping", Method: "GET", Path: "/ping", Title: "Ping", Annotations: an}, ping)
	rest.HandleConfirmed(a, rest.Operation{ID: "ping_confirmed", Method: "POST", Path: "/ping", Title: "Ping", Annotations: an},
		func(context.Context, *pingIn) (string, error) { return "Ping?", nil }, ping)
	rest.HandleRaw(a, rest.Operation{ID: "ping_raw", Method: "GET", Path: "/ping.txt"}, pingRaw)
	adapter := func(ctx context.Context, in any) (*rest.Response, error) { return pingTyped(ctx, nil) }
	rest.HandleType(a, rest.Operation{ID: "ping_dyn", Method: "PUT", Path: "/ping", Title: "Ping", Annotations: an}, reflect.TypeFor[pingIn](), nil, adapter)
	if got := a.Implementation("ping_dyn"); pc(got) != pc(adapter) {
		t.Errorf("ping_dyn before SetImplementation: %v", got)
	}
	a.SetImplementation("ping_dyn", pingTyped)
	for id, want := range map[string]any{"ping": ping, "ping_confirmed": ping, "ping_raw": pingRaw, "ping_dyn": pingTyped} {
		got := a.Implementation(id)
		if got == nil || pc(got) != pc(want) {
			t.Errorf("%s: Implementation is %v, not the declared handler", id, got)
		}
	}
	if got := a.Implementation("nope"); got != nil {
		t.Errorf("unknown id: %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("SetImplementation of an unknown id did not panic")
		}
	}()
	a.SetImplementation("nope", ping)
}
