// Package webhooks is how products tell the outside world what happened:
// system events, fanned out to the organization's matching active
// webhooks, each delivery signed (X-Kobana-Signature: sha256=<hex HMAC of
// the raw body>), captured (request and response), retried with backoff on
// 5xx, timeouts and connection errors, and replayable. Targets are reached
// through an SSRF guard checked at connect time (oauth/server/safehttp
// policy) unless a development setting allows private addresses.
//
// One home for every product: rows carry the product that owns them.
//
// SKELETON: the API below is agreed; the implementation is being written.
package webhooks

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Config configures a Service.
type Config struct {
	// Product owns the rows ("inbox").
	Product string
	// AllowPrivateTargets lets deliveries reach loopback, private and
	// link-local addresses: development only.
	AllowPrivateTargets bool
	// Retries are the delays before each retry of a failed delivery
	// (default 7 attempts in all over about nine hours).
	Retries []time.Duration
	// Timeout bounds one delivery attempt (default 10 s).
	Timeout time.Duration
	// Environment is sent as X-Kobana-Environment ("production").
	Environment string
	Logger      *slog.Logger
}

// Webhook is a subscription of a workspace to events.
type Webhook struct {
	ID                  string    `db:"id" json:"id"`
	OrganizationID      string    `db:"organization_id" json:"-"`
	WorkspaceID         string    `db:"workspace_id" json:"workspace_id"`
	ExternalID          string    `db:"external_id" json:"external_id"`
	ScopeID             *string   `db:"scope_id" json:"-"` // the Inbox's inbox_id
	Label               string    `db:"label" json:"label"`
	URL                 string    `db:"url" json:"url"`
	Auth                string    `db:"auth" json:"auth"` // none, basic, bearer, header
	SubscribedEvents    []string  `db:"-" json:"subscribed_events"`
	Status              string    `db:"status" json:"status"` // active, inactive
	ConsecutiveFailures int       `db:"consecutive_failures" json:"consecutive_failures"`
	CreatedAt           time.Time `db:"created_at" json:"created_at"`
	UpdatedAt           time.Time `db:"updated_at" json:"updated_at"`
}

// Event is something that happened, as a product reports it to Emit.
type Event struct {
	OrganizationID string
	WorkspaceID    string
	// Slug names the event ("email.processed").
	Slug string
	// ScopeID narrows which webhooks match (a webhook with a scope gets only
	// events of that scope); SubjectID is what the event is about. The
	// Inbox passes the inbox and the e-mail.
	ScopeID, SubjectID string
	// Data is the event's payload "data" member.
	Data any
}

// SystemEvent is a stored event.
type SystemEvent struct {
	ID          string          `db:"id" json:"id"`
	WorkspaceID string          `db:"workspace_id" json:"workspace_id"`
	ScopeID     *string         `db:"scope_id" json:"-"`
	SubjectID   *string         `db:"subject_id" json:"-"`
	Slug        string          `db:"slug" json:"slug"`
	Payload     json.RawMessage `db:"payload" json:"payload"`
	CreatedAt   time.Time       `db:"created_at" json:"created_at"`
}

// Service stores webhooks, events and deliveries and sends them.
type Service struct {
	db  *store.DB
	q   *jobs.Queue
	cfg Config
}

// New builds the service and registers its delivery worker on q.
func New(db *store.DB, q *jobs.Queue, cfg Config) *Service {
	return &Service{db: db, q: q, cfg: cfg}
}

// Emit stores the event and, in the same transaction, one pending delivery
// per matching active webhook with its delivery job.
func (s *Service) Emit(ctx context.Context, tx *store.Tx, ev Event) (SystemEvent, error) {
	return SystemEvent{}, nil
}
