package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/kobana/kobana-mcp/mcp"
)

// resources are the fixed-URI fixtures. test://static-text must come first:
// the caching scenario reads whichever resource resources/list returns first.
//
// An unknown URI needs no code here: the mcp package answers it with the
// era's not-found error (-32602 with data.uri in 2026-07-28, -32002 in 2025),
// which sep-2164-resource-not-found checks.
func resources() []mcp.Resource {
	return []mcp.Resource{
		{
			URI:         "test://static-text",
			Name:        "static-text",
			Title:       "Static text",
			Description: "A fixed text resource.",
			MimeType:    "text/plain",
			Read: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
					mcp.TextResource(req.URI, "text/plain", "This is the content of the static text resource."),
				}}, nil
			},
		},
		{
			URI:         "test://static-binary",
			Name:        "static-binary",
			Title:       "Static binary",
			Description: "A fixed binary resource: a 1x1 PNG, sent as a base64 blob.",
			MimeType:    "image/png",
			Read: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
					mcp.BlobResource(req.URI, "image/png", pngBase64),
				}}, nil
			},
		},
	}
}

// resourceTemplates are the parameterised fixtures: test://template/{id}/data
// reads as a small JSON document naming its id.
func resourceTemplates() []mcp.ResourceTemplate {
	return []mcp.ResourceTemplate{
		{
			URITemplate: "test://template/{id}/data",
			Name:        "template-data",
			Title:       "Template data",
			Description: "A JSON document for any id.",
			MimeType:    "application/json",
			Read:        readTemplateData,
			Complete:    completeFrom([]string{"1", "2", "3", "123"}),
		},
	}
}

func readTemplateData(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id := req.Variables["id"]
	body, err := json.Marshal(struct {
		ID           string `json:"id"`
		TemplateTest bool   `json:"templateTest"`
		Data         string `json:"data"`
	}{id, true, "Data for ID: " + id})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
		mcp.TextResource(req.URI, "application/json", string(body)),
	}}, nil
}

// completeFrom suggests the candidates that start with what was typed so far.
func completeFrom(candidates []string) mcp.CompleteHandler {
	return func(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		values := []string{}
		for _, c := range candidates {
			if strings.HasPrefix(c, req.Value) {
				values = append(values, c)
			}
		}
		total := len(values)
		return &mcp.Completion{Values: values, Total: &total}, nil
	}
}
