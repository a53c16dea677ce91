package mcp

import (
	"errors"
	"fmt"
	"net/http"
)

// JSON-RPC error codes this package emits. The standard ones come from
// JSON-RPC 2.0; the -320xx ones are MCP's own (2026-07-28); the application
// codes sit outside the range JSON-RPC reserves, so no client mistakes them
// for protocol errors.
const (
	// CodeParseError: the body is not JSON.
	CodeParseError = -32700
	// CodeInvalidRequest: not one valid JSON-RPC request object (array body,
	// bad id, duplicate keys, oversized body).
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: a method this era does not serve. HTTP 404 in the
	// 2026 era, a 200 in the 2025 one.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: missing envelope fields, unknown tool or prompt,
	// invalid cursor, tampered or expired requestState, and (2026) an unknown
	// resource.
	CodeInvalidParams = -32602
	// CodeInternalError: the server failed; details are logged, never sent.
	CodeInternalError = -32603
	// CodeResourceNotFound is the 2025 era's code for an unknown resource URI.
	// The 2026 era forbids it and uses CodeInvalidParams instead.
	CodeResourceNotFound = -32002
	// CodeHeaderMismatch: an MCP header is missing, malformed or disagrees
	// with the body (2026 era).
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability: the request needs a capability the
	// client did not declare (2026 era). Data: [MissingCapabilityData].
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion: a revision this server does not speak,
	// in a header or in the envelope. Data: [UnsupportedVersionData].
	CodeUnsupportedProtocolVersion = -32022

	// CodeRateLimited is sent with HTTP 429 when the caller is over its rate
	// limit. Application code, outside the JSON-RPC reserved range.
	CodeRateLimited = -31029
	// CodeUnavailable is sent with HTTP 503 when the server is overloaded or
	// draining for shutdown. Application code, outside the reserved range.
	CodeUnavailable = -31003
)

// UnsupportedVersionData is the data of a -32022 error: what the server speaks
// and, echoed exactly, what the client asked for.
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// MissingCapabilityData is the data of a -32021 error, keyed by capability as
// in ClientCapabilities (for example {"elicitation":{"form":{}}}).
type MissingCapabilityData struct {
	RequiredCapabilities map[string]any `json:"requiredCapabilities"`
}

// ResourceNotFoundData is the data of a resource-not-found error, in either era.
type ResourceNotFoundData struct {
	URI string `json:"uri"`
}

// Error is a JSON-RPC error together with the HTTP status it travels with.
// Handlers return it (or wrap it) to answer with a protocol error instead of
// a tool result; any other error becomes -32603 with the details logged.
type Error struct {
	Code    int
	Message string
	Data    any
	// Status is the HTTP status of the response; 0 means 200.
	Status int
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// NewError returns a JSON-RPC error that travels in a 200 response, the
// status of every error raised after routing.
func NewError(code int, message string, data any) *Error {
	return &Error{Code: code, Message: message, Data: data}
}

// InvalidParams returns a -32602 error in a 200, the answer to bad method
// parameters after routing (unknown tool, invalid cursor, bad requestState).
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// ErrInvalidState is wrapped by every failure to open a requestState: forged,
// tampered, expired, bound to another principal, method, name or arguments.
// It answers -32602.
var ErrInvalidState = errors.New("invalid requestState")

func errParse(detail string) *Error {
	return &Error{Code: CodeParseError, Message: "Parse error: " + detail, Status: http.StatusBadRequest}
}

func errInvalidRequest(detail string) *Error {
	return &Error{Code: CodeInvalidRequest, Message: "Invalid Request: " + detail, Status: http.StatusBadRequest}
}

func errBodyTooLarge(limit int64) *Error {
	return &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("Request body too large (limit %d bytes)", limit), Status: http.StatusRequestEntityTooLarge}
}

func errHeaderMismatch(format string, args ...any) *Error {
	return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + fmt.Sprintf(format, args...), Status: http.StatusBadRequest}
}

func errUnsupportedVersion(requested string) *Error {
	return &Error{
		Code:    CodeUnsupportedProtocolVersion,
		Message: "Unsupported protocol version",
		Data:    UnsupportedVersionData{Supported: SupportedVersions, Requested: requested},
		Status:  http.StatusBadRequest,
	}
}

func errEnvelope(detail string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + detail, Status: http.StatusBadRequest}
}

func errMethodNotFound(era Era, method string) *Error {
	e := &Error{Code: CodeMethodNotFound, Message: "Method not found: " + method}
	if era == EraModern {
		e.Status = http.StatusNotFound
	}
	return e
}

func errResourceNotFound(era Era, uri string) *Error {
	code := CodeInvalidParams
	if era == EraLegacy {
		code = CodeResourceNotFound
	}
	return &Error{Code: code, Message: "Resource not found", Data: ResourceNotFoundData{URI: uri}}
}

func errInternal() *Error {
	return &Error{Code: CodeInternalError, Message: "Internal error"}
}
