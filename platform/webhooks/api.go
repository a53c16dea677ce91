package webhooks

import (
	"time"
)

// The types of the Service's API. Every method is scoped by organization,
// workspace and the Service's product: a row of another organization or
// workspace is store.ErrNotFound, and so is a deleted webhook. ref
// arguments accept the id or the external_id (the id wins when a value is
// both). Bad input is a *ValidationError naming the field.
//
// Listing convention: rows come ordered (webhooks oldest first; deliveries
// and events newest first) after the row whose id is `after` ("" for the
// first page), at most limit+1 of them, so the caller knows whether a next
// page exists (ids are UUIDv7: time-ordered).

// Auth kinds of a webhook target.
const (
	AuthNone   = "none"
	AuthBasic  = "basic"
	AuthBearer = "bearer"
	AuthHeader = "header"
)

// Credentials authenticate deliveries to the target; write-only (never
// returned by the API).
type Credentials struct {
	Username, Password string // basic
	Token              string // bearer
	HeaderName         string // header
	HeaderValue        string // header
}

// NewWebhook is what Create needs.
type NewWebhook struct {
	OrganizationID, WorkspaceID string
	ExternalID                  string // "" → the generated id
	ScopeID                     string // "" → every scope
	Label, URL                  string
	Auth                        string
	Credentials                 Credentials
	SubscribedEvents            []string // slugs, "*" or "prefix.*"
	Status                      string   // "" → active
}

// WebhookPatch changes the fields that are set.
type WebhookPatch struct {
	Label, URL, Auth, Status, ScopeID *string
	Credentials                       *Credentials
	SubscribedEvents                  []string // nil: unchanged
}

// ListFilter narrows a listing of webhooks.
type ListFilter struct {
	Status  string
	ScopeID string
	After   string
	Limit   int
}

// Delivery is one event sent (or to be sent) to one webhook, with the last
// attempt's request and response as captured. Attempt counts the attempts
// started; while one is in flight the delivery is pending with that
// attempt's request and no response, error or next retry. An attempt
// whose outcome is unknown (its worker stopped while it was in flight)
// shows an error saying so.
type Delivery struct {
	ID              string            `db:"id" json:"id"`
	WebhookID       string            `db:"webhook_id" json:"webhook_id"`
	SystemEventID   string            `db:"system_event_id" json:"system_event_id"`
	EventSlug       string            `db:"event_slug" json:"event_slug"`
	ReplayOf        *string           `db:"replay_of" json:"replay_of"`
	Status          string            `db:"status" json:"status"` // pending, success, failed
	Attempt         int               `db:"attempt" json:"attempt"`
	RequestHeaders  map[string]string `db:"-" json:"request_headers"`
	RequestBody     string            `db:"request_body" json:"request_body"`
	ResponseStatus  *int              `db:"response_status" json:"response_status"`
	ResponseHeaders map[string]string `db:"-" json:"response_headers"`
	ResponseBody    *string           `db:"response_body" json:"response_body"`
	Error           *string           `db:"error" json:"error"`
	DurationMS      *int64            `db:"duration_ms" json:"duration_ms"`
	DeliveredAt     *time.Time        `db:"delivered_at" json:"delivered_at"`
	NextRetryAt     *time.Time        `db:"next_retry_at" json:"next_retry_at"`
	CreatedAt       time.Time         `db:"created_at" json:"created_at"`
	UpdatedAt       time.Time         `db:"updated_at" json:"updated_at"`
}

// EventFilter narrows a listing of system events.
type EventFilter struct {
	Slug      string
	ScopeID   string
	SubjectID string
	After     string
	Limit     int
}
