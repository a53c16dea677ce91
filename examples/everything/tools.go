package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kobana/kobana-mcp/mcp"
)

// The suite's tiny media fixtures: a 1×1 PNG and a 1-sample WAV, base64.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// noArguments is the input schema of every fixture tool that takes nothing.
// It is written as the suite's reference server writes it; unlike a nil
// schema it leaves extra keys alone, so a client that sends some is not
// refused.
const noArguments = `{"type":"object","properties":{}}`

// jsonSchema202012 is the schema the json-schema-2020-12 scenario inspects
// (SEP-1613): $schema, $defs with an $anchor, $ref, allOf/anyOf,
// if/then/else and additionalProperties:false must all survive tools/list
// unchanged, in both eras.
const jsonSchema202012 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

// customHeaderSchema declares one argument mirrored in an HTTP header
// ("x-mcp-header"): a 2026 client must send it as Mcp-Param-Value, and the
// mcp package rejects a missing, malformed or mismatched header with 400 and
// -32020 before the tool runs. The http-custom-header-server-validation
// scenario picks the first listed tool with such a property.
const customHeaderSchema = `{
	"type": "object",
	"properties": {"value": {"type": "string", "x-mcp-header": "Value"}},
	"required": ["value"]
}`

// withInputSchema sets a tool's input schema from JSON text. The fixtures'
// schemas are given by the suite as JSON, so they are written as JSON here
// too; a typo is a programming error and panics at start-up.
func withInputSchema(t mcp.Tool, schemaJSON string) mcp.Tool {
	if err := json.Unmarshal([]byte(schemaJSON), &t.InputSchema); err != nil {
		panic(fmt.Sprintf("everything: tool %s: bad input schema: %v", t.Name, err))
	}
	return t
}

// fixed returns a handler that always answers with the same result.
func fixed(result func() *mcp.CallToolResult) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(), nil
	}
}

// tools are the fixtures that answer in one round trip, in either era. The
// order matters: tools-list and http-header-validation take tools[0] and
// expect test_simple_text.
//
// Tools the suite only uses on 2025 server-to-client streams
// (test_tool_with_logging, test_sampling, test_elicitation and the SEP-1034
// and SEP-1330 elicitation tools) are left out: this server answers every
// POST with one JSON document and can never send those requests or
// notifications, so the scenarios fail with or without the tools (see
// conformance/expected-failures.yml).
func tools() []mcp.Tool {
	return []mcp.Tool{
		withInputSchema(mcp.Tool{
			Name:        "test_simple_text",
			Description: "Returns a fixed text block.",
			Handler: fixed(func() *mcp.CallToolResult {
				return mcp.TextResult("This is a simple text response for testing.")
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name:        "test_image_content",
			Description: "Returns a 1x1 PNG image block.",
			Handler: fixed(func() *mcp.CallToolResult {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.ImageContent(pngBase64, "image/png")}}
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name:        "test_audio_content",
			Description: "Returns a tiny WAV audio block.",
			Handler: fixed(func() *mcp.CallToolResult {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.AudioContent(wavBase64, "audio/wav")}}
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name:        "test_embedded_resource",
			Description: "Returns a resource embedded in the result.",
			Handler: fixed(func() *mcp.CallToolResult {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.EmbeddedResource(
					mcp.TextResource("test://embedded-resource", "text/plain", "This is an embedded resource content."))}}
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name:        "test_multiple_content_types",
			Description: "Returns text, an image and an embedded resource in one result.",
			Handler: fixed(func() *mcp.CallToolResult {
				return &mcp.CallToolResult{Content: []mcp.Content{
					mcp.TextContent("Multiple content types test:"),
					mcp.ImageContent(pngBase64, "image/png"),
					mcp.EmbeddedResource(mcp.TextResource("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`)),
				}}
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name:        "test_error_handling",
			Description: "Always fails with a tool execution error (isError: true), never a protocol error.",
			Handler: fixed(func() *mcp.CallToolResult {
				return mcp.ErrorResult("This tool intentionally returns an error for testing")
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name: "test_tool_with_progress",
			Description: "Would report progress while it works. This server has no response stream, " +
				"so it cannot send notifications/progress and only returns its final result.",
			Handler: fixed(func() *mcp.CallToolResult {
				return mcp.TextResult("Progress test completed (no progress notifications: this server answers with JSON only).")
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name:        "json_schema_2020_12_tool",
			Description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.TextResult("Received: " + string(req.Arguments)), nil
			},
		}, jsonSchema202012),
		withInputSchema(mcp.Tool{
			Name:        "test_custom_header",
			Description: "Echoes its value argument, which 2026 clients also send in the Mcp-Param-Value header.",
			Handler: func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var args struct {
					Value string `json:"value"`
				}
				if err := json.Unmarshal(req.Arguments, &args); err != nil {
					return mcp.ErrorResult("Invalid arguments: " + err.Error()), nil
				}
				return mcp.TextResult("Value: " + args.Value), nil
			},
		}, customHeaderSchema),
		withInputSchema(mcp.Tool{
			Name: "test_reconnection",
			Description: "Would close its SSE stream to test client reconnection. This server opens no " +
				"streams, so it simply answers.",
			Handler: fixed(func() *mcp.CallToolResult {
				return mcp.TextResult("Reconnection test completed.")
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name: "test_logging_tool",
			Description: "Would log while it works. A request without a log level must receive no " +
				"notifications/message, and this server never sends any.",
			Handler: fixed(func() *mcp.CallToolResult {
				return mcp.TextResult("Logging test completed without log messages.")
			}),
		}, noArguments),
		withInputSchema(mcp.Tool{
			Name: "test_missing_capability",
			Description: "Needs the client's sampling capability: a 2026 request that does not declare it " +
				"is refused with -32021 before anything runs.",
			Handler: missingCapability,
		}, noArguments),
	}
}

// missingCapability demonstrates the -32021 gate. It does not really sample;
// it only refuses to run for a 2026 client that did not declare sampling in
// this very request, naming the capability in the shape clients can act on.
// 2025 clients declared their capabilities once, in initialize, which a
// stateless server never sees again, so the gate applies to 2026 only.
func missingCapability(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.Era == mcp.EraModern && !req.Capabilities.Has("sampling") {
		return nil, &mcp.Error{
			Code:    mcp.CodeMissingRequiredClientCapability,
			Message: "This tool requires the sampling client capability",
			Data:    mcp.MissingCapabilityData{RequiredCapabilities: map[string]any{"sampling": map[string]any{}}},
			Status:  http.StatusBadRequest,
		}
	}
	return mcp.TextResult("Success"), nil
}
