package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
)

// The golden fixture: a small, fully deterministic catalog that has one of
// everything the transport treats differently per era.
//
//	tools (in list order; PageSize 2 gives three pages):
//	  read_items   read-only, strict arguments (limit, prefix)
//	  delete_item  destructive; asks for a form confirmation (MRTR)
//	  get_report   outputSchema (object) + structuredContent + resource_link
//	  echo         has a title, a tool _meta (one reserved key) and result _meta
//	  list_tags    outputSchema that is NOT an object + array structuredContent
//	resources:   test://readme (with title), test://config
//	templates:   test://items/{id} (ids 1 and 2 exist; Complete)
//	prompts:     summarize (required "topic", optional "style"; Complete)

func goldenOptions() mcp.Options {
	return mcp.Options{
		Name:         "golden-server",
		Title:        "Golden Server",
		Version:      "1.0.0",
		Instructions: "Golden instructions.",
		MaxBodyBytes: 4096,
		PageSize:     2,
		AllowOrigin:  mcp.AllowOrigins("https://app.example.com"),
	}
}

func goldenHandler() *mcp.Handler {
	return mcp.MustNewHandler(goldenOptions(), goldenCatalog())
}

var goldenItems = map[string]string{"1": "First", "2": "Second"}

func objectSchema(required []string, props map[string]*jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

func annotations(readOnly, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    mcp.Bool(readOnly),
		DestructiveHint: mcp.Bool(destructive),
		IdempotentHint:  mcp.Bool(idempotent),
		OpenWorldHint:   mcp.Bool(false),
	}
}

// confirmSchema is the form a destructive tool asks the person to fill.
var confirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"confirm": map[string]any{"type": "boolean", "title": "Yes, delete it", "default": false},
	},
	"required": []any{"confirm"},
}

func goldenCatalog() mcp.Catalog {
	return mcp.Catalog{
		Tools: []mcp.Tool{
			{
				Name:        "read_items",
				Description: "Lists the items.",
				InputSchema: objectSchema(nil, map[string]*jsonschema.Schema{
					"limit":  {Type: "integer"},
					"prefix": {Type: "string"},
				}),
				Annotations: annotations(true, false, true),
				Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					var args struct {
						Limit  *int   `json:"limit"`
						Prefix string `json:"prefix"`
					}
					if err := json.Unmarshal(req.Arguments, &args); err != nil {
						return nil, err
					}
					type item struct {
						ID   string `json:"id"`
						Name string `json:"name"`
					}
					data := []item{}
					for _, id := range []string{"1", "2"} {
						if strings.HasPrefix(goldenItems[id], args.Prefix) {
							data = append(data, item{id, goldenItems[id]})
						}
					}
					if args.Limit != nil && *args.Limit < len(data) {
						data = data[:*args.Limit]
					}
					b, err := json.Marshal(map[string]any{"data": data})
					if err != nil {
						return nil, err
					}
					return &mcp.CallToolResult{Content: []mcp.Content{req.JSONText(b)}}, nil
				},
			},
			{
				Name:        "delete_item",
				Description: "Deletes one item after the person confirms.",
				InputSchema: objectSchema([]string{"id"}, map[string]*jsonschema.Schema{
					"id": {Type: "string"},
				}),
				Annotations: annotations(false, true, true),
				// It runs its own MRTR confirmation: the tests of the
				// machinery (mrtr_test.go) drive it.
				ConfirmsItself: true,
				Handler:        deleteItem,
			},
			{
				Name:        "get_report",
				Description: "Counts the items.",
				OutputSchema: objectSchema([]string{"count"}, map[string]*jsonschema.Schema{
					"count": {Type: "integer"},
				}),
				Annotations: annotations(true, false, true),
				Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{
						Content: []mcp.Content{
							mcp.TextContent(`{"count":2}`),
							mcp.ResourceLink("test://items/1", "Item 1", "text/plain"),
						},
						StructuredContent: map[string]any{"count": 2},
					}, nil
				},
			},
			{
				Name:        "echo",
				Title:       "Echo Tool",
				Description: "Echoes its text.",
				InputSchema: objectSchema([]string{"text"}, map[string]*jsonschema.Schema{
					"text": {Type: "string"},
				}),
				Annotations: &mcp.ToolAnnotations{
					Title:           "Echo",
					ReadOnlyHint:    mcp.Bool(false),
					DestructiveHint: mcp.Bool(false),
					IdempotentHint:  mcp.Bool(true),
					OpenWorldHint:   mcp.Bool(false),
				},
				Meta: map[string]any{
					"golden/owner":                 "tests",
					"io.modelcontextprotocol/hint": "reserved",
				},
				Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					var args struct {
						Text string `json:"text"`
					}
					if err := json.Unmarshal(req.Arguments, &args); err != nil {
						return nil, err
					}
					res := mcp.TextResult(args.Text)
					res.Meta = map[string]any{
						"golden/trace":                  "t-1",
						"io.modelcontextprotocol/extra": "reserved",
					}
					return res, nil
				},
			},
			{
				Name:        "list_tags",
				Description: "Lists the tags.",
				OutputSchema: &jsonschema.Schema{
					Type:  "array",
					Items: &jsonschema.Schema{Type: "string"},
				},
				Annotations: annotations(true, false, true),
				Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{
						Content:           []mcp.Content{mcp.TextContent(`["alpha","beta"]`)},
						StructuredContent: []string{"alpha", "beta"},
					}, nil
				},
			},
		},
		Resources: []mcp.Resource{
			{
				URI:         "test://readme",
				Name:        "readme",
				Title:       "Read Me",
				Description: "About the golden server.",
				MimeType:    "text/plain",
				Read: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
						mcp.TextResource(req.URI, "text/plain", "Golden server test resource."),
					}}, nil
				},
			},
			{
				URI:      "test://config",
				Name:     "config",
				MimeType: "application/json",
				Read: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
						mcp.TextResource(req.URI, "application/json", `{"mode":"test"}`),
					}}, nil
				},
			},
		},
		ResourceTemplates: []mcp.ResourceTemplate{
			{
				URITemplate: "test://items/{id}",
				Name:        "item",
				Title:       "Item",
				Description: "One item by id.",
				MimeType:    "text/plain",
				Read: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					name, ok := goldenItems[req.Variables["id"]]
					if !ok {
						return nil, mcp.ErrResourceNotFound
					}
					return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
						mcp.TextResource(req.URI, "text/plain", fmt.Sprintf("Item %s: %s", req.Variables["id"], name)),
					}}, nil
				},
				Complete: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
					return completeFrom([]string{"1", "2"}, req.Value), nil
				},
			},
		},
		Prompts: []mcp.Prompt{
			{
				Name:        "summarize",
				Title:       "Summarize",
				Description: "Summarizes a topic.",
				Arguments: []mcp.PromptArgument{
					{Name: "topic", Title: "Topic", Description: "What to summarize", Required: true},
					{Name: "style", Description: "brief or detailed"},
				},
				Get: func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					style := req.Arguments["style"]
					if style == "" {
						style = "brief"
					}
					return &mcp.GetPromptResult{
						Description: "Summary of " + req.Arguments["topic"],
						Messages: []mcp.PromptMessage{
							{Role: "user", Content: mcp.TextContent(fmt.Sprintf("Summarize %s in a %s style.", req.Arguments["topic"], style))},
							{Role: "user", Content: mcp.ResourceLink("test://readme", "readme", "text/plain")},
						},
					}, nil
				},
				Complete: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
					switch req.Argument {
					case "topic":
						if req.Context["style"] == "detailed" {
							return completeFrom([]string{"golang internals"}, req.Value), nil
						}
						return completeFrom([]string{"golang", "goldens", "graphs"}, req.Value), nil
					case "style":
						return completeFrom([]string{"brief", "detailed"}, req.Value), nil
					}
					return nil, nil
				},
			},
		},
	}
}

func completeFrom(candidates []string, prefix string) *mcp.Completion {
	values := []string{}
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			values = append(values, c)
		}
	}
	total := len(values)
	return &mcp.Completion{Values: values, Total: &total}
}

// deleteItem is the destructive tool: the first call asks for a form
// confirmation; the retry (with the sealed state) runs only on accept with
// confirm: true.
func deleteItem(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return nil, err
	}
	if req.State == nil {
		return mcp.InputRequiredResult(&mcp.InputRequired{
			Requests: map[string]mcp.InputRequest{
				"confirm": mcp.ElicitForm(fmt.Sprintf("Delete item %s? This cannot be undone.", args.ID), confirmSchema),
			},
			Data: []byte("item:" + args.ID),
		}), nil
	}
	resp, ok := req.InputResponses["confirm"]
	if !ok {
		return mcp.InputRequiredResult(&mcp.InputRequired{
			Requests: map[string]mcp.InputRequest{
				"confirm": mcp.ElicitForm(fmt.Sprintf("Delete item %s? This cannot be undone.", args.ID), confirmSchema),
			},
		}), nil
	}
	answer, err := resp.Elicit()
	if err != nil {
		return nil, err
	}
	if answer.Action == "accept" && answer.Content["confirm"] == true {
		return mcp.TextResult(fmt.Sprintf("Deleted item %s (%s).", args.ID, req.State.Data)), nil
	}
	return mcp.ErrorResult(fmt.Sprintf("Nothing was done: the deletion of item %s was not confirmed.", args.ID)), nil
}
