package escalation

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/bureau"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// bureauTimeout bounds one call to a provider; a slower answer is a
// failure that may pass, retried with the same Idempotency-Key.
const bureauTimeout = 15 * time.Second

// defaultCommandRetryBase is the first wait before a command's call is
// tried again; each retry doubles it, up to an hour.
const defaultCommandRetryBase = 10 * time.Second

// RegisterEscalation declares reports, protests and agreements, the
// charge-closed hook that asks their reports and protests out, the
// providers' callbacks and the jobs. Without a configured gateway
// (cfg.BureauURL) and with a database, the embedded provider
// (bureau.Fake) serves on a loopback listener of this process for as long
// as the listener runs: a report can be made with nothing installed and
// nothing leaves the machine.
func RegisterEscalation(b *productkit.Builder, api *rest.API, svc *Service, cfg ledger.ChannelConfig) error {
	registerCommands(api, svc)
	registerAgreements(api, svc)
	svc.WhenChargeClosed(svc.commandsOnChargeClosed)
	if svc.Bureaus.RetryBase == 0 {
		svc.Bureaus.RetryBase = defaultCommandRetryBase
	}
	if svc.Bureaus.CallbackBase == "" {
		svc.Bureaus.CallbackBase = strings.TrimRight(b.Deps.PublicURL, "/")
	}
	if b.Deps.DB == nil {
		return nil
	}
	if svc.Bureaus.Provider == nil {
		if cfg.BureauURL != "" {
			svc.Bureaus.Provider = bureau.NewClient(cfg.BureauURL, bureauTimeout)
			svc.Bureaus.Secret = []byte(cfg.BureauSecret)
		} else {
			// The deployment secret, when there is one, so that a separate
			// worker's embedded provider signs callbacks the serving
			// process verifies; a random one otherwise.
			secret := make([]byte, 32)
			if len(b.Deps.Secret) > 0 {
				m := hmac.New(sha256.New, b.Deps.Secret)
				m.Write([]byte("dunning embedded bureau callbacks"))
				secret = m.Sum(nil)
			} else {
				_, _ = rand.Read(secret)
			}
			fake := bureau.NewFake(secret)
			// The embedded provider answers later, by callback, as the real
			// ones do.
			fake.Later, fake.CallbackDelay = true, time.Second
			base, err := fake.Start()
			if err != nil {
				return fmt.Errorf("dunning: the embedded credit-bureau provider: %w", err)
			}
			svc.Bureaus.Provider, svc.Bureaus.Secret = bureau.NewClient(base, bureauTimeout), secret
			b.Lifecycle(func(context.Context) error { return nil }, func(context.Context) error { return fake.Close() }, func() []string {
				return []string{"kobana-dunning credit bureaus and notary: the embedded test provider at " + base + " (nothing leaves this machine)"}
			})
		}
	}
	b.Jobs(func(q *jobs.Queue) {
		svc.registerCommandJobs(q, !svc.NoPeriodic)
		svc.registerAgreementJobs(q, !svc.NoPeriodic)
		svc.RegisterCountMender(q, !svc.NoPeriodic)
	})
	b.Routes(func(mux *http.ServeMux) { svc.mountCommandCallbacks(mux, api) })
	return nil
}
