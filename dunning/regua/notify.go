package regua

import (
	"context"
	"net/http"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// RegisterNotify declares the part of Dunning that contacts debtors on
// the product: the notification log and the sends (notifications_api.go
// in dunning/notify), the step approvals (approvals.go), the public
// unsubscribe and provider callback routes, and the jobs — the send
// worker (send.go in dunning/notify), the step runner and the daily sweep
// (runner.go and sweep.go). cfg is the
// deployment's providers; tune, when set, adjusts the notifier before
// anything serves (tests).
func RegisterNotify(b *productkit.Builder, api *rest.API, svc *escalation.Service, cfg ledger.ChannelConfig, tune func(*Notifier)) error {
	ch, err := ledger.NewChannels(cfg)
	if err != nil {
		return err
	}
	base := cfg.LinkBase
	if base == "" {
		base = b.Deps.PublicURL
	}
	// The Pix QR links are signed like the unsubscribe links and served on
	// the same listener (dunning/notify's pix_qr.go).
	svc.PixQR = ledger.NewPixLinks(base, b.Deps.Secret)
	n := &Notifier{Notifier: notify.NewNotifier(svc.Service.Service, ch, base, b.Deps.Secret), esc: svc}
	// Each paced provider's rate, held in the database across every
	// worker process (dunning/notify's pace.go).
	n.Pace = notify.NewPacer(b.Deps.DB, cfg.SendRates)
	// PATCH /v1/settings accepts only the providers configured here.
	svc.Offers = ch.Offers
	if tune != nil {
		tune(n)
	}
	notify.RegisterNotifications(api, n.Notifier)
	registerApprovals(api, n)
	// A charge that leaves collection takes its messages not yet sent
	// with it, in the same transaction.
	svc.WhenChargeClosed(n.chargeClosed)
	b.Jobs(func(q *jobs.Queue) { n.RegisterJobs(q) })
	if b.Deps.DB != nil {
		b.Routes(func(mux *http.ServeMux) {
			n.MountUnsubscribe(mux)
			n.MountPixQR(mux)
			n.MountCallbacks(mux, api)
		})
	}
	return nil
}

// RegisterJobs registers the notifier's workers and schedules on q: every
// process registers the same (serve, worker, tests), and a test can
// register a second queue to play a second worker process.
func (n *Notifier) RegisterJobs(q *jobs.Queue) {
	jobs.AddWorker(q, &notify.SendWorker{Notifier: n.Notifier, Queue: q})
	jobs.AddWorker(q, &runnerWorker{n: n, q: q})
	jobs.AddWorker(q, &sliceWorker{n: n})
	jobs.AddWorker(q, &sweepWorker{n: n})
	if n.Periodic {
		n.schedule(q)
	}
}

// chargeClosed runs in the transaction that takes a charge out of
// collection (paid, canceled, written off, archived): its notifications
// still queued are skipped and its pending step approvals expire, so
// nothing about a settled debt leaves after that commit. A message
// already sending is past recall; the send job's own check in its claim
// catches any queued after this ran.
func (n *Notifier) chargeClosed(ctx context.Context, tx *store.Tx, c ledger.Charge, reason lifecycle.StopReason) error {
	now := n.Clock()
	msg := "skipped: " + collection.SkipChargeNotCollectible + ": the charge became " + string(reason) + " before the message left"
	if err := skipQueuedNotifications(ctx, tx, c.OrganizationID, c.ID, msg, now); err != nil {
		return err
	}
	return expireChargeApprovals(ctx, tx, c.OrganizationID, c.ID, "the charge became "+string(reason), now)
}
