package mcp

import (
	"context"
	"errors"
)

// Resource is a document with a fixed URI, listed by resources/list.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MimeType    string
	// Size in bytes, when known.
	Size *int64
	Meta map[string]any
	// Requires is checked by the Authorizer both to list and to read.
	Requires Requirement
	// Read returns the contents.
	Read ResourceHandler
}

// ResourceTemplate is a family of resources named by an RFC 6570 level 1
// URI template ("kobana://inbox/emails/{id}"), listed by
// resources/templates/list and read through resources/read.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MimeType    string
	Meta        map[string]any
	Requires    Requirement
	// Read returns the contents of one matching URI; req.Variables holds the
	// template's variables, already percent-decoded.
	Read ResourceHandler
	// Complete suggests values for a template variable (completion/complete
	// with a ref/resource naming this template).
	Complete CompleteHandler

	compiled *uriTemplate
}

// ResourceHandler reads a resource. Return [ErrResourceNotFound] (or wrap
// it) when the URI names nothing this caller may read: the era decides the
// code the client sees.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error)

// ErrResourceNotFound answers resources/read with the era's not-found error:
// -32602 in 2026-07-28, -32002 in the 2025 revisions.
var ErrResourceNotFound = errors.New("resource not found")

// ReadResourceRequest is what a resource handler receives.
type ReadResourceRequest struct {
	Request
	URI string
	// Variables are the template's variables when the URI matched a
	// template, nil for a fixed resource.
	Variables map[string]string
}

// ReadResourceResult is a resource's contents, or a request for input.
type ReadResourceResult struct {
	Contents      []ResourceContents
	Meta          map[string]any
	inputRequired *InputRequired
}

// ReadInputRequired asks the client for input before the read can finish.
func ReadInputRequired(ir *InputRequired) *ReadResourceResult {
	return &ReadResourceResult{inputRequired: ir}
}
