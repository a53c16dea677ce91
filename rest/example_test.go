package rest_test

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/rest"
)

// One declaration gives a REST route, an MCP tool and an OpenAPI entry.
func ExampleHandle() {
	type getEmail struct {
		ID string `json:"id" in:"path" jsonschema:"The e-mail's id or external_id."`
	}
	api := rest.New(rest.Config{Title: "Example", Version: "1", BasePath: "/api/v1"})
	rest.Handle(api, rest.Operation{
		ID: "emails_get", Method: "GET", Path: "/emails/{id}",
		Title: "Get an e-mail", Summary: "Gets one e-mail.",
		Requires:    mcp.Requirement{Scopes: []string{"inbox.emails"}},
		Annotations: mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
	}, func(ctx context.Context, in *getEmail) (*rest.Response, error) {
		return rest.OK(map[string]any{"data": map[string]any{"id": in.ID}}), nil
	})

	tools := api.Tools(restbridge.New(api, restbridge.Options{}))
	fmt.Println(tools[0].Name, tools[0].Requires.Scopes, *tools[0].Annotations.ReadOnlyHint)
	fmt.Println(tools[0].InputSchema.Required)
	// Output:
	// emails_get [inbox.emails] true
	// [id]
}
