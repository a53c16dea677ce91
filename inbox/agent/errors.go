package agent

import (
	"errors"
	"fmt"
)

// Error is a failed run. Message is safe to store and show (on the
// AgentRun, to the API caller): it never contains the API key.
type Error struct {
	Provider string
	// StatusCode is the provider's HTTP status, 0 when there was no HTTP
	// answer (timeout, network, canceled, unusable body).
	StatusCode int
	Message    string
	// Retryable says that the same request may succeed later: HTTP 408,
	// 429 and 5xx, timeouts and network failures. A canceled context, a
	// rejected request (4xx) or an unusable answer are not.
	Retryable bool
	// Err is the underlying cause when there is one (context.Canceled,
	// context.DeadlineExceeded, a network error), for errors.Is.
	Err error
}

// Error renders "provider: HTTP status: message" (or without the status).
func (e *Error) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.StatusCode, e.Message)
	}
	return e.Provider + ": " + e.Message
}

// Unwrap exposes the cause, so errors.Is(err, context.Canceled) works.
func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether err is a provider error worth retrying
// later (see Error.Retryable). Any other error is not.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}
