package rest_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/rest"
)

// renameIn is what a run-time input type is built to look like, under
// another argument name and description.
type renameIn struct {
	ID    string `json:"id" in:"path" jsonschema:"The note's id."`
	Title string `json:"heading" maxLength:"20" jsonschema:"The note's new heading."`
}

// An operation declared with HandleType from a reflect.StructOf type has
// the schema, validation and confirmation step a Handle declaration of
// the same struct has.
func TestHandleTypeIsHandleForRunTimeTypes(t *testing.T) {
	t.Parallel()
	dyn := reflect.StructOf([]reflect.StructField{
		{Name: "ID", Type: reflect.TypeFor[string](), Tag: `json:"id" in:"path" jsonschema:"The note's id."`},
		{Name: "Title", Type: reflect.TypeFor[string](), Tag: `json:"heading" maxLength:"20" jsonschema:"The note's new heading."`},
	})
	an := mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	a := rest.New(rest.Config{BasePath: "/api/v1"})
	rest.HandleType(a, rest.Operation{ID: "notes_rename", Method: "PUT", Path: "/notes/{id}", Title: "Rename", Annotations: an},
		reflect.TypeFor[renameIn](), nil, nil) // the static twin, for its schema only
	rest.HandleType(a, rest.Operation{ID: "notes_rename_dyn", Method: "PATCH", Path: "/notes/{id}", Title: "Rename", Annotations: an}, dyn,
		func(ctx context.Context, in any) (string, error) {
			v := reflect.ValueOf(in).Elem()
			return "Rename " + v.FieldByName("ID").String() + " to " + v.FieldByName("Title").String() + "?", nil
		},
		func(ctx context.Context, in any) (*rest.Response, error) {
			v := reflect.ValueOf(in).Elem()
			if v.FieldByName("ID").String() == "gone" {
				return nil, rest.NotFound("note")
			}
			return rest.OK(map[string]any{"id": v.FieldByName("ID").String(), "heading": v.FieldByName("Title").String()}), nil
		})
	bridge := restbridge.New(a, restbridge.Options{})
	tools := a.Tools(bridge)
	static, _ := json.Marshal(tools[0].InputSchema)
	dynamic, _ := json.Marshal(tools[1].InputSchema)
	if string(static) != string(dynamic) || !strings.Contains(string(dynamic), `"heading"`) {
		t.Fatalf("schemas differ:\n%s\n%s", static, dynamic)
	}
	if tools[0].Confirm != nil || tools[1].Confirm == nil {
		t.Fatal("a describe makes the tool a confirmed one, and only then")
	}

	srv := httptest.NewServer(a)
	defer srv.Close()
	if code, out := restCall(t, srv, "PATCH", "/api/v1/notes/n1", `{"heading":"New"}`); code != 200 || out["heading"] != "New" || out["id"] != "n1" {
		t.Fatalf("PATCH: %d %v", code, out)
	}
	if code, out := restCall(t, srv, "PATCH", "/api/v1/notes/n1", `{"heading":"far too long for the limit"}`); code != 422 || !strings.Contains(details(out), `"field":"heading"`) {
		t.Fatalf("validation: %d %v", code, out)
	}
	if code, _ := restCall(t, srv, "PATCH", "/api/v1/notes/gone", `{"heading":"x"}`); code != 404 {
		t.Fatalf("handler error: %d", code)
	}
	// The describing request answers the message and runs nothing.
	msg, answer, err := tools[1].Confirm(context.Background(), &mcp.CallToolRequest{Name: "notes_rename_dyn", Arguments: json.RawMessage(`{"id":"n1","heading":"Later"}`)})
	if err != nil || answer != nil || msg != "Rename n1 to Later?" {
		t.Fatalf("describe: %q %v %v", msg, answer, err)
	}
}

// An API's ErrorCodes spell every code it answers: its handlers', its
// validation's and its router's (the idempotency layer's:
// platform/idempotency's tests, on a real database).
func TestErrorCodesSpellEveryAnswer(t *testing.T) {
	t.Parallel()
	n := &notes{items: map[string]string{"n1": "first"}}
	a := rest.New(rest.Config{BasePath: "/api/v1", ErrorCodes: strings.ToUpper})
	rest.Handle(a, rest.Operation{ID: "notes_get", Method: "GET", Path: "/notes/{id}", Annotations: ro()},
		func(ctx context.Context, in *getIn) (*rest.Response, error) {
			if _, ok := n.items[in.ID]; !ok {
				return nil, rest.NotFound("note")
			}
			return rest.OK(map[string]any{}), nil
		})
	rest.Handle(a, rest.Operation{ID: "notes_create", Method: "POST", Path: "/notes",
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)}},
		func(ctx context.Context, in *createIn) (*rest.Response, error) {
			return rest.Created(map[string]any{"title": in.Title}), nil
		})
	srv := httptest.NewServer(a)
	defer srv.Close()
	code := func(out map[string]any) string { return out["error"].(map[string]any)["code"].(string) }
	if c, out := restCall(t, srv, "GET", "/api/v1/notes/nope", ""); c != 404 || code(out) != "NOT_FOUND" {
		t.Fatalf("handler: %d %v", c, out)
	}
	if c, out := restCall(t, srv, "POST", "/api/v1/notes", `{}`); c != 422 || code(out) != "VALIDATION_FAILED" {
		t.Fatalf("validation: %d %v", c, out)
	}
	if c, out := restCall(t, srv, "GET", "/api/v1/nowhere", ""); c != 404 || code(out) != "NOT_FOUND" {
		t.Fatalf("router: %d %v", c, out)
	}
}
