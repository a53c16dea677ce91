package inbox

import (
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// testEnv is one Inbox listener on loopback over a real database, with two
// organizations (Mine, Theirs), an owner in each, real tokens and the job
// queue running in the process (productkit/producttest): what every Inbox
// test drives.
type testEnv struct{ *producttest.Env }

// newTestEnv starts the listener. cfg may be the zero Config.
func newTestEnv(t *testing.T, db *store.DB, cfg Config) *testEnv {
	t.Helper()
	return &testEnv{producttest.Start(t, db, Spec(cfg), producttest.Options{
		Webhooks: productkit.WebhookSettings{AllowPrivateTargets: cfg.WebhookAllowPrivateTargets, Retries: cfg.WebhookRetries}})}
}
