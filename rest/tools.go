package rest

import (
	"net/http"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
)

// Tools derives the MCP tool of every operation that is not REST-only, in
// declaration order, each dispatching in-process through bridge to this
// API. The tool's input schema is the operation's own, plus an
// idempotency_key on the writes that honour it (POST, PUT, PATCH; a
// DELETE is idempotent by itself and ignores the header).
func (a *API) Tools(bridge *restbridge.Bridge) []mcp.Tool {
	var tools []mcp.Tool
	for _, reg := range a.ops {
		op := reg.op
		if op.RESTOnly {
			continue
		}
		schema := reg.input.schema.CloneSchemas()
		if op.Method == http.MethodPost || op.Method == http.MethodPut || op.Method == http.MethodPatch {
			if schema.Properties == nil {
				schema.Properties = map[string]*jsonschema.Schema{}
			}
			schema.Properties["idempotency_key"] = &jsonschema.Schema{
				Type:        "string",
				MaxLength:   jsonschema.Ptr(255),
				Description: "Makes the write safe to retry: the first response is kept for 24 hours and replayed for the same key; the same key with other arguments is a conflict.",
			}
		}
		var query []string
		if op.Method == http.MethodPost || op.Method == http.MethodPut || op.Method == http.MethodPatch {
			for _, name := range reg.input.order {
				if reg.input.location[name] == inQuery {
					query = append(query, name)
				}
			}
		}
		annotations := op.Annotations
		if annotations.Title == "" {
			annotations.Title = op.Title
		}
		// The route reads the arguments object itself (decodeArguments):
		// one parse, instead of the bridge building a query string and a
		// body for the route to parse again.
		route := restbridge.Route{Method: op.Method, Path: a.cfg.BasePath + op.Path, Query: query, PassArguments: true}
		tool := mcp.Tool{
			Name:                 op.ID,
			Title:                op.Title,
			Description:          describe(op),
			InputSchema:          schema,
			Annotations:          &annotations,
			Requires:             op.Requires,
			SkipSchemaValidation: true,
			// The route refuses unknown arguments itself (decodeArguments),
			// in the API's error envelope.
			HandlerRefusesUnknownArguments: true,
			ConsumesConfirmation:           op.ConsumesConfirmation,
			Handler:                        bridge.MustHandler(route),
		}
		if reg.describes {
			tool.Confirm = bridge.MustDescriber(route)
		}
		tools = append(tools, tool)
	}
	return tools
}

func describe(op Operation) string {
	parts := make([]string, 0, 2)
	if op.Summary != "" {
		parts = append(parts, op.Summary)
	}
	if op.Description != "" {
		parts = append(parts, op.Description)
	}
	return strings.Join(parts, "\n\n")
}
