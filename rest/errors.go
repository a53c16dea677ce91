package rest

import (
	"fmt"
	"net/http"
)

// Canonical error codes. An API spells them its own way through
// Config.ErrorCodes (Dunning's are upper case), but handlers always use
// these.
const (
	CodeValidationFailed = "validation_failed"
	CodeNotFound         = "not_found"
	CodeConflict         = "conflict"
	CodeUnprocessable    = "unprocessable"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = "forbidden"
	CodeRateLimited      = "rate_limited"
	CodeUnavailable      = "unavailable"
	CodeInternal         = "internal_error"
	CodeBadRequest       = "bad_request"
	CodeUnsupportedMedia = "unsupported_media_type"
	CodePayloadTooLarge  = "payload_too_large"
)

// ErrorCodes spells a canonical code (the Code* constants, the
// idempotency codes) the way one API's clients read it. Each product
// chooses its style once, for every answer of its API (docs/decisions.md
// "Error codes"); nil keeps the canonical lower-case codes.
type ErrorCodes func(canonical string) string

// Spell is c's spelling of code (code itself when c is nil).
func (c ErrorCodes) Spell(code string) string {
	if c == nil {
		return code
	}
	return c(code)
}

// Error is an API error: an HTTP status, a machine-readable code, a message
// for people and, for validation, one detail per offending field.
type Error struct {
	Status  int
	Code    string
	Message string
	Details []FieldError
	// Header is sent with the error (a WWW-Authenticate challenge, say).
	Header http.Header
}

// FieldError names one invalid field ("" for the whole input).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// NotFound is the answer for anything the caller may not see, whether it
// does not exist or belongs to someone else: existence is never revealed.
func NotFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: what + " not found"}
}

// Conflict reports a request that contradicts the current state.
func Conflict(msg string) *Error {
	return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: msg}
}

// Validation reports invalid input with one detail per field.
func Validation(msg string, details ...FieldError) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeValidationFailed, Message: msg, Details: details}
}

// Unprocessable reports a well-formed request the current state of what
// it acts on does not allow (a business rule, rather than a field).
func Unprocessable(msg string) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeUnprocessable, Message: msg}
}

// Forbidden reports an operation the caller's role does not allow.
func Forbidden(msg string) *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: msg}
}

// ErrorRenderer shapes an Error into the product's error body.
type ErrorRenderer func(e *Error) any

// DefaultErrors renders {"error":{"code","message","details"}} with the
// canonical lowercase codes.
func DefaultErrors(e *Error) any {
	type body struct {
		Code    string       `json:"code"`
		Message string       `json:"message"`
		Details []FieldError `json:"details,omitempty"`
	}
	return map[string]any{"error": body{e.Code, e.Message, e.Details}}
}
