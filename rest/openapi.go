package rest

import (
	encjson "encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// OpenAPI returns the API's OpenAPI 3.1 document, built from the same
// declarations that route requests and define the MCP tools. Each
// operation also carries x-mcp-tool: the tool's name and annotations.
func (a *API) OpenAPI() []byte {
	paths := map[string]map[string]any{}
	for _, reg := range a.ops {
		op := reg.op
		item := paths[a.cfg.BasePath+op.Path]
		if item == nil {
			item = map[string]any{}
			paths[a.cfg.BasePath+op.Path] = item
		}
		success := map[string]any{"description": "Success"}
		if reg.output != nil {
			success["content"] = map[string]any{"application/json": map[string]any{"schema": reg.output}}
		}
		entry := map[string]any{
			"operationId": op.ID,
			"responses": map[string]any{
				"default":                map[string]any{"description": "An error", "content": map[string]any{"application/json": map[string]any{}}},
				successStatus(op.Method): success,
			},
		}
		if op.Summary != "" {
			entry["summary"] = op.Summary
		}
		if op.Description != "" {
			entry["description"] = op.Description
		}
		if len(op.Tags) > 0 {
			entry["tags"] = op.Tags
		}
		scopes := op.Requires.Scopes
		if scopes == nil {
			scopes = []string{}
		}
		entry["security"] = []map[string][]string{{"bearer": scopes}}
		if op.Requires.Permission != "" {
			entry["x-permission"] = op.Requires.Permission
		}
		if !op.RESTOnly {
			entry["x-mcp-tool"] = map[string]any{"name": op.ID, "annotations": op.Annotations}
		}
		if reg.input != nil {
			params, body := reg.input.openAPIParts()
			params = append(params, a.idempotencyParameters(op.Method)...)
			if len(params) > 0 {
				entry["parameters"] = params
			}
			if body != nil {
				entry["requestBody"] = map[string]any{
					"required": len(body.Required) > 0,
					"content":  map[string]any{"application/json": map[string]any{"schema": body}},
				}
			}
		}
		item[strings.ToLower(op.Method)] = entry
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": a.cfg.Title, "version": a.cfg.Version},
		"paths":   paths,
		"components": map[string]any{"securitySchemes": map[string]any{
			"bearer": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
		}},
	}
	b, err := encjson.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// outputTypeSchemas are the schemas of output types whose JSON is not
// their Go shape: raw JSON is any JSON (not an array of bytes), and times
// are RFC 3339 text.
var outputTypeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[encjson.RawMessage](): {},
	reflect.TypeFor[time.Time]():          {Type: "string", Format: "date-time"},
}

// outputSchema is the JSON Schema of an operation's answer. A pointer is
// followed: a success answer is never null.
func outputSchema(t reflect.Type) (*jsonschema.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: outputTypeSchemas})
	if err != nil {
		return nil, fmt.Errorf("output %v: %w", t, err)
	}
	return s, nil
}

func successStatus(method string) string {
	if method == http.MethodPost {
		return "201"
	}
	return "200"
}

// openAPIParts splits the flat input schema into path and query parameters
// and the body schema.
func (spec *inputSpec) openAPIParts() ([]map[string]any, *jsonschema.Schema) {
	var params []map[string]any
	var body *jsonschema.Schema
	for _, name := range spec.order {
		prop := spec.schema.Properties[name]
		if prop == nil {
			continue
		}
		where := spec.location[name]
		required := contains(spec.schema.Required, name)
		if where == inBody {
			if body == nil {
				body = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
			}
			body.Properties[name] = prop
			if required {
				body.Required = append(body.Required, name)
			}
			continue
		}
		p := map[string]any{"name": name, "in": where, "required": required || where == inPath, "schema": prop}
		if prop.Description != "" {
			p["description"] = prop.Description
		}
		params = append(params, p)
	}
	return params, body
}
