// Package webhooks is how products tell the outside world what happened:
// system events, fanned out to the organization's matching active
// webhooks, each delivery signed (X-Kobana-Signature: sha256=<hex HMAC of
// the raw body>), captured (request and response), retried with backoff on
// 5xx, 408, 429, timeouts and connection errors, and replayable. Unless a
// development setting allows private addresses, a target is checked when
// the webhook is saved (every spelling of a private, loopback, link-local,
// unspecified or metadata address, internal and metadata names: checkHost)
// and reached through an SSRF guard checked at connect time, on the
// address actually dialled (platform/safehttp policy, plus the
// metadata addresses it cannot tell from public ones).
//
// One home for every product: rows carry the product that owns them, and
// one delivery worker per job queue serves every product's Service.
//
// Delivery and retries. Emit (and Test, Replay) store a pending delivery
// and, in the same transaction, a River job whose arguments carry only ids.
// The job makes one attempt; when the attempt fails in a retryable way and
// attempts remain, the delivery stays pending with next_retry_at set from
// Config.Retries and the job snoozes (river.JobSnooze) until then. Snoozing,
// rather than River's own retry policy, keeps the delivery's attempt count
// and schedule in the delivery row, the one place that decides: River's
// attempts and backoff are left to failures of the job itself (a database
// outage), which never consume a delivery attempt. A job run that finds
// its delivery already success or failed, or not yet due, sends nothing,
// so River's at-least-once execution does not send twice.
//
// A crash in the middle of an attempt. Each attempt is recorded as
// started — committed, with its request, before the request leaves — and
// its outcome after: while it is in flight the delivery shows the attempt
// with its request and neither a response, an error nor a next retry. A
// job run that finds an attempt so (its process died, or a hard stop cut
// it off, and River rescued or retried the job) records that attempt's
// outcome as unknown — the target may have received it — and retries it
// on the schedule like a failed one (outcome "unknown" in the metrics):
// deliveries are at least once, and receivers recognise a repeat by
// X-Kobana-Delivery-Id. A run cut off by a stop records the unknown
// outcome itself before it returns.
//
// Errors a tenant reads (a delivery's error) say what kind of failure it
// was — connection refused, timed out, the target address is not allowed
// — and never the address the target's name resolved to; the operator's
// log has the full error.
//
// Without a job queue (New with a nil *jobs.Queue, as transport tests do)
// deliveries are stored and stay pending: nothing sends them.
package webhooks

import (
	"crypto/cipher"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Config configures a Service.
type Config struct {
	// Product owns the rows ("inbox").
	Product string
	// AllowPrivateTargets lets deliveries reach loopback, private and
	// link-local addresses, and targets use plain http: development only.
	AllowPrivateTargets bool
	// Retries are the delays before each retry of a failed delivery, so a
	// delivery gets len(Retries)+1 attempts in all (default
	// DefaultRetries: 7 attempts over about nine hours). Empty means the
	// default.
	Retries []time.Duration
	// Timeout bounds one delivery attempt, connection to last byte
	// (default 10 s).
	Timeout time.Duration
	// Environment is sent as X-Kobana-Environment ("production", the
	// default; or "sandbox").
	Environment string
	// SealingSecret, when set, seals the stored credentials and signing
	// secrets (AES-256-GCM under a key derived from it): a database dump
	// alone does not reveal them. Use at least 32 random bytes, the same on
	// every replica; empty stores them in plain text (development). Values
	// stored in plain text stay readable after a secret is configured, and
	// are sealed when next written.
	SealingSecret []byte
	// RotationGrace is how long the previous signing secret keeps signing
	// after RotateSecret: during it every delivery carries two signatures
	// in X-Kobana-Signature, space-separated ("sha256=<new> sha256=<old>"),
	// so a receiver still holding the old secret verifies until it is
	// updated (rotation.go). Zero: the old secret stops at once.
	RotationGrace time.Duration
	// Logger receives the service's logs (nil: discarded).
	Logger *slog.Logger
}

// DefaultRetries are the delays between the attempts of a delivery when
// Config.Retries is empty: 7 attempts in all over 8 h 36 min.
var DefaultRetries = []time.Duration{
	time.Minute, 5 * time.Minute, 30 * time.Minute, time.Hour, 3 * time.Hour, 4 * time.Hour,
}

// DefaultTimeout bounds a delivery attempt when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

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

// Webhook statuses.
const (
	StatusActive   = "active"
	StatusInactive = "inactive"
)

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
	// Data is the event's payload "data" member (nil: {}): a value
	// json.Marshal encodes, raw JSON (compacted and checked first), or
	// Marshaled data (copied as it is).
	Data any
}

// Marshaled is event data json.Marshal encoded (MarshalData): compact,
// valid and escaped for HTML already, so an event copies it as it is.
// Data encoded once for several events — an e-mail's intake and its
// outcome emit two or three — was compacted again for each of them as raw
// JSON: a tenth of the Inbox intake's CPU per e-mail (docs/performance.md,
// "Inbox intake, the per-e-mail work (session 13)").
type Marshaled []byte

// MarshalData encodes v as Marshaled event data: the only way to make it,
// so its bytes are json.Marshal's.
func MarshalData(v any) (Marshaled, error) {
	b, err := json.Marshal(v)
	return Marshaled(b), err
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
	db      *store.DB
	q       *jobs.Queue
	cfg     Config
	log     *slog.Logger
	aead    cipher.AEAD // nil: secrets stored in plain text
	client  *http.Client
	metrics *metrics
}

// New builds the service and registers its delivery worker on q (once per
// queue: the worker serves every product's Service on it), so the first
// New on a queue must come before the queue's Start. q may be nil:
// deliveries are then stored and stay pending.
func New(db *store.DB, q *jobs.Queue, cfg Config) *Service {
	if len(cfg.Retries) == 0 {
		cfg.Retries = DefaultRetries
	}
	cfg.Retries = append([]time.Duration(nil), cfg.Retries...)
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Environment == "" {
		cfg.Environment = "production"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{
		db:      db,
		q:       q,
		cfg:     cfg,
		log:     log.With("component", "webhooks", "product", cfg.Product),
		client:  newClient(cfg.Timeout, cfg.AllowPrivateTargets),
		metrics: newMetricsFor(cfg.Product),
	}
	if len(cfg.SealingSecret) > 0 {
		if len(cfg.SealingSecret) < 32 {
			s.log.Warn("webhooks: the sealing secret is shorter than 32 bytes; use a longer random one")
		}
		s.aead = newSealer(cfg.SealingSecret)
	} else {
		s.log.Info("webhooks: no sealing secret configured; credentials and signing secrets are stored in plain text")
	}
	if q != nil {
		register(q, s)
	}
	return s
}

// maxAttempts is how many attempts a delivery gets in all.
func (s *Service) maxAttempts() int { return len(s.cfg.Retries) + 1 }
