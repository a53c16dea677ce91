package ledger

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kobana/kobana-mcp/dunning/bureau"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/confirm"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// Service is what every Dunning operation and background job shares: one
// per listener, built in spec.go's build. Its fields are set once there
// (and by tests) and never changed while requests run.
type Service struct {
	// DB is nil when the product is built for its catalog only (the
	// golden tests): operations are declared but never run.
	DB       *store.DB
	Accounts *accounts.Store
	// Jobs is the durable queue (platform/jobs); nil without a database.
	Jobs *jobs.Queue
	// Hooks stores Dunning's events and delivers them to its webhooks.
	Hooks *webhooks.Service
	// Nonces are the used confirmations of destructive tools: a
	// destructive operation runs in nonces.WithTx, so its confirmation is
	// spent exactly when its writes commit (docs/decisions.md
	// "Confirmation of destructive tools"). Nil without a database.
	Nonces *confirm.Nonces
	Log    *slog.Logger
	// Now is the clock: every "today", every timestamp a Dunning row gets
	// and every fine and interest figure reads it, so tests drive weeks
	// of collection in milliseconds.
	Now func() time.Time
	// Tenancy resolves the caller's organization from the token only; no
	// operation takes an organization argument (docs/architecture.md).
	Tenancy restkit.Tenancy

	// CountMismatches is what the count mender's last run found
	// (count_mender.go), exported as kobana_dunning_count_mismatches.
	CountMismatches *prometheus.GaugeVec

	// chargeClosedHooks run, in the transaction that closes a charge, for
	// every charge that becomes paid, canceled, written off or archived.
	// Add to them with whenChargeClosed while building the service.
	chargeClosedHooks []chargeClosedFunc

	// dueMovedHooks run, in the transaction that changes a charge's due
	// date, for that charge: the collection plans move its steps with it
	// (docs/decisions.md "Product code layout (issue 24)": the ledger
	// tells the layers above it, it never calls up). Add to them with
	// whenDueMoved while building the service.
	dueMovedHooks []dueMovedFunc

	// Offers reports whether the deployment serves a channel with a
	// provider (channels.go); set by the notifications' registration, nil
	// when they are not registered (every provider passes).
	Offers func(channel, provider string) bool

	// Bureaus reaches the credit bureaus and the notary (commands.go).
	Bureaus BureauSetup
	// PixQR makes and checks the signed links of charges' Pix QR codes
	// (pix.go); set with the notifier, which knows the public URL. Nil:
	// Pix codes carry no QR link.
	PixQR *PixLinks
	// pixMTLS is the Pix webhook's mutual-TLS listener
	// (pix_webhook_tls.go); nil without one.
	pixMTLS *pixMTLSListener
	// Portal makes and checks the debtor page's signed links
	// (portal_link.go); set with the page (dunning/portal). Nil:
	// {{debtor.portal_url}} renders empty.
	Portal *PortalLinks
	// NoPeriodic leaves the escalation's periodic jobs (the removal watch,
	// the agreement monitor) out: tests that move the clock run them.
	NoPeriodic bool
}

// chargeClosedFunc is work that must happen in the same transaction as a
// charge leaving collection: the collection plans stop their enrollments
// of it (lifecycle.StopReasonFor), so no reminder of a debt that is paid,
// canceled or archived can be sent after it commits. An error rolls the
// whole change back.
type chargeClosedFunc func(ctx context.Context, tx *store.Tx, c Charge, reason lifecycle.StopReason) error

// dueMovedFunc is work that must happen in the same transaction as a
// change of a charge's due date (orgID, chargeID). An error rolls the
// whole change back.
type dueMovedFunc func(ctx context.Context, tx *store.Tx, orgID, chargeID string) error

// StopArchived is the enrollments' stopped_reason for a charge that was
// archived; the other reasons come from lifecycle.StopReasonFor.
const StopArchived lifecycle.StopReason = "archived"

// NewService builds the service over the product's dependencies. db, q
// and logger may be nil (a catalog-only build).
func NewService(db *store.DB, acc *accounts.Store, q *jobs.Queue, hooks *webhooks.Service, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{DB: db, Accounts: acc, Jobs: q, Hooks: hooks, Log: logger, Now: time.Now,
		Tenancy: restkit.OrganizationTenancy(acc), CountMismatches: newCountMismatches()}
}

// WhenChargeClosed adds fn to what runs when a charge leaves collection
// (see chargeClosedFunc). Call it from build, before the API serves.
func (s *Service) WhenChargeClosed(fn chargeClosedFunc) {
	s.chargeClosedHooks = append(s.chargeClosedHooks, fn)
}

// OnChargeClosed runs every chargeClosedFunc for c, which has just become
// paid, canceled or written off (reason from lifecycle.StopReasonFor) or
// archived (stopArchived), inside tx. With none added it does nothing.
func (s *Service) OnChargeClosed(ctx context.Context, tx *store.Tx, c Charge, reason lifecycle.StopReason) error {
	for _, fn := range s.chargeClosedHooks {
		if err := fn(ctx, tx, c, reason); err != nil {
			return err
		}
	}
	return nil
}

// WhenDueMoved adds fn to what runs when a charge's due date changes (see
// dueMovedFunc). Call it from build, before the API serves.
func (s *Service) WhenDueMoved(fn dueMovedFunc) {
	s.dueMovedHooks = append(s.dueMovedHooks, fn)
}

// onDueMoved runs every dueMovedFunc for the charge inside tx.
func (s *Service) onDueMoved(ctx context.Context, tx *store.Tx, orgID, chargeID string) error {
	for _, fn := range s.dueMovedHooks {
		if err := fn(ctx, tx, orgID, chargeID); err != nil {
			return err
		}
	}
	return nil
}

// Tenant is the caller's organization (and the home workspace the
// platform's per-workspace rows live under), from the token only.
func (s *Service) Tenant(ctx context.Context) (restkit.Tenant, error) {
	return s.Tenancy(ctx)
}

// Clock is the current instant in UTC, truncated to what PostgreSQL keeps
// (store.Now), from the injectable clock.
func (s *Service) Clock() time.Time {
	return s.Now().UTC().Truncate(time.Microsecond)
}

// BureauSetup is how the service reaches its providers.
type BureauSetup struct {
	Provider bureau.Provider
	// Secret verifies the providers' callbacks.
	Secret []byte
	// CallbackBase is the product's public URL (callbacks go under it).
	CallbackBase string
	// RetryBase is the first retry delay of a call that may pass.
	RetryBase time.Duration
}
