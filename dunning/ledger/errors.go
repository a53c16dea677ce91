package ledger

import (
	"strings"

	"github.com/kobana/kobana-mcp/rest"
)

// errorCodes are Dunning's spellings of the canonical codes: upper case,
// from one closed list (VALIDATION_ERROR, NOT_FOUND, CONFLICT,
// UNPROCESSABLE, UNAUTHORIZED, FORBIDDEN, RATE_LIMITED, UNAVAILABLE,
// INTERNAL_ERROR). Both idempotency refusals are conflicts of the key with
// the request (the message says which).
var errorCodes = map[string]string{
	rest.CodeValidationFailed:     "VALIDATION_ERROR",
	rest.CodeNotFound:             "NOT_FOUND",
	rest.CodeConflict:             "CONFLICT",
	rest.CodeIdempotencyKeyReused: "CONFLICT",
	rest.CodeIdempotencyKeyInUse:  "CONFLICT",
	rest.CodeUnprocessable:        "UNPROCESSABLE",
	rest.CodeUnauthorized:         "UNAUTHORIZED",
	rest.CodeForbidden:            "FORBIDDEN",
	rest.CodeRateLimited:          "RATE_LIMITED",
	rest.CodeUnavailable:          "UNAVAILABLE",
	rest.CodeInternal:             "INTERNAL_ERROR",
}

// ErrorCodes is Dunning's error-code style (rest.Config.ErrorCodes), for
// every answer of its API: its operations', its validation's, the rate
// limiter's, the idempotency layer's and, through the listener's Front,
// the overload guard's and the drain's (docs/decisions.md "Error codes").
// A code outside the list (the transport's bad_request,
// unsupported_media_type, payload_too_large) is its upper-case spelling.
func ErrorCodes(canonical string) string {
	if c, ok := errorCodes[canonical]; ok {
		return c
	}
	return strings.ToUpper(canonical)
}
