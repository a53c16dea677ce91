package rest_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/rest"
)

type cardView struct {
	ID        string          `json:"id" jsonschema:"The card's id."`
	Title     *string         `json:"title"`
	Tags      []string        `json:"tags"`
	Extra     json.RawMessage `json:"extra"`
	CreatedAt time.Time       `json:"created_at"`
}

type cardPage struct {
	Data []cardView `json:"data"`
	Meta struct {
		NextCursor *string `json:"next_cursor"`
	} `json:"meta"`
}

type cardOne struct {
	Data cardView `json:"data"`
}

func cardsAPI() *rest.API {
	a := rest.New(rest.Config{Title: "Cards", Version: "1", BasePath: "/api"})
	title := "First"
	card := cardView{ID: "c1", Title: &title, Tags: []string{"a"}, Extra: json.RawMessage(`{"k":1}`), CreatedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	rest.Handle(a, rest.Operation{ID: "cards_list", Method: "GET", Path: "/cards", Title: "List cards", Annotations: ro(), Output: cardPage{}},
		func(ctx context.Context, in *struct{}) (*rest.Response, error) {
			return rest.OK(cardPage{Data: []cardView{card}}), nil
		})
	rest.Handle(a, rest.Operation{ID: "cards_create", Method: "POST", Path: "/cards", Title: "Create a card", Output: &cardOne{},
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(false), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(false), OpenWorldHint: mcp.Bool(false)}},
		func(ctx context.Context, in *struct {
			Title string `json:"title"`
		}) (*rest.Response, error) {
			c := card
			c.Title = &in.Title
			return rest.Created(cardOne{Data: c}), nil
		})
	rest.Handle(a, rest.Operation{ID: "cards_count", Method: "GET", Path: "/cards/count", Title: "Count cards", Annotations: ro()},
		func(ctx context.Context, in *struct{}) (*rest.Response, error) {
			return rest.OK(map[string]int{"count": 1}), nil
		})
	return a
}

// An operation that declares its Output gets a response schema for its
// success status in the OpenAPI document; its tool still answers one text
// block, with no outputSchema or structuredContent.
func TestOutputDescribesTheSuccessResponse(t *testing.T) {
	t.Parallel()
	a := cardsAPI()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(a.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	list := doc.Paths["/api/cards"]["get"].Responses["200"].Content["application/json"].Schema
	data, _ := list["properties"].(map[string]any)["data"].(map[string]any)
	item, _ := data["items"].(map[string]any)
	props, _ := item["properties"].(map[string]any)
	b, _ := json.Marshal(props)
	for _, want := range []string{
		`"id":{"description":"The card's id.","type":"string"}`,
		`"title":{"type":["null","string"]}`,
		`"tags":{"items":{"type":"string"},"type":["null","array"]}`,
		`"extra":true`,
		`"created_at":{"format":"date-time","type":"string"}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("cards_list's item schema lacks %s: %s", want, b)
		}
	}
	if req, _ := item["required"].([]any); len(req) != 5 {
		t.Errorf("every member of the answer is always there: %v", item["required"])
	}
	created := doc.Paths["/api/cards"]["post"].Responses["201"].Content["application/json"].Schema
	if created["type"] != "object" || created["properties"].(map[string]any)["data"] == nil {
		t.Errorf("a pointer Output is described as its value, under 201: %v", created)
	}
	if c := doc.Paths["/api/cards/count"]["get"].Responses["200"].Content; c != nil {
		t.Errorf("an operation without Output claims a schema: %v", c)
	}

	h := mcp.MustNewHandler(mcp.Options{Name: "cards", Version: "1", Confirm: mcp.ConfirmOptions{Disabled: true}}, mcp.Catalog{Tools: a.Tools(restbridge.New(a, restbridge.Options{}))})
	srv := httptest.NewServer(h)
	defer srv.Close()
	tools := mcpPost(t, srv.URL, "tools/list", "", map[string]any{})["result"].(map[string]any)["tools"].([]any)
	for _, tl := range tools {
		if tl.(map[string]any)["outputSchema"] != nil {
			t.Errorf("a tool declares an outputSchema: %v", tl)
		}
	}
	res := mcpPost(t, srv.URL, "tools/call", "cards_list", map[string]any{"name": "cards_list", "arguments": map[string]any{}})["result"].(map[string]any)
	content := res["content"].([]any)
	if len(content) != 1 || res["structuredContent"] != nil || content[0].(map[string]any)["type"] != "text" ||
		content[0].(map[string]any)["text"] != `{"data":[{"id":"c1","title":"First","tags":["a"],"extra":{"k":1},"created_at":"2026-03-01T12:00:00Z"}],"meta":{"next_cursor":null}}` {
		t.Fatalf("tools/call: %v", res)
	}
}

// An Output type with no JSON Schema fails the declaration.
func TestOutputMustHaveASchema(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "cards_bad") {
			t.Fatalf("recovered %v", r)
		}
	}()
	a := rest.New(rest.Config{BasePath: "/api"})
	rest.Handle(a, rest.Operation{ID: "cards_bad", Method: "GET", Path: "/bad", Annotations: ro(), Output: map[int]string{}},
		func(ctx context.Context, in *struct{}) (*rest.Response, error) { return rest.OK(nil), nil })
}
