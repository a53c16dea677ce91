package dunning

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// A provider's own send rate holds across worker processes
// (docs/decisions.md "The step runner at scale"): with twilio=10-S and two
// worker queues, 30 SMS queued at once reach a local server speaking
// Twilio's Messages API over at least 2.9 s (29 intervals, less 100 ms of
// jitter), never more than 10 in any 900 ms (a second, less one interval
// of the network's jitter), all sent and each once. Without the rate the
// same 30 arrive within a fraction of a second.
//
// PostgreSQL only: two working processes on one database is the replicas'
// deployment, which runs on PostgreSQL (docs/operating.md). On one SQLite
// file, with the rest of the package's tests beside it in CI, the two
// queues' writers held each other past the busy timeout and the 30 SMS did
// not all leave within the wait (seen once in a full run; the slot logic
// itself is the same code on both engines).
func TestSendRateAcrossWorkers(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		if db.Dialect() != store.Postgres {
			t.Skip("two working processes on one database: PostgreSQL's deployment")
		}
		const k, perSecond = 30, 10
		interval := time.Second / perSecond
		tw := ntNewTwilio(t)
		ne := startNotify(t, db, ledger.ChannelConfig{Twilio: tw.config(), SendRates: map[string]time.Duration{ledger.ProviderTwilio: interval}}, ntMonday)
		ne.secondQueue(t)
		org := ne.Mine.ID
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{ledger.ChannelSMS: {Enabled: true, Provider: ledger.ProviderTwilio}}, 0)
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Rita", Phones: []string{"+5511987654321"}})
		for i := 0; i < k; i++ {
			code, body := ne.Do(ne.Owner, "POST", "/v1/notifications", map[string]any{"debtor_id": debtor, "channel": "sms", "body": fmt.Sprintf("Lembrete %d", i)})
			if code != 202 {
				t.Fatalf("notification %d: %d %s", i, code, body)
			}
		}
		waitLong(t, "every SMS sent", func() bool {
			return scaleRows(t, db, `SELECT COUNT(*) FROM dunning_notifications WHERE status = 'sent'`) == k
		})
		at := tw.arrivals()
		if len(at) != k {
			t.Fatalf("the Twilio server got %d requests, want %d", len(at), k)
		}
		span, most := at[k-1].Sub(at[0]), mostWithin(at, 900*time.Millisecond)
		t.Logf("%d SMS over %s, at most %d within 900 ms and %d within a second", k, span, most, mostWithin(at, time.Second))
		if span < time.Duration(k-1)*interval-100*time.Millisecond {
			t.Errorf("%d SMS at %d/s arrived over %s", k, perSecond, span)
		}
		if most > perSecond {
			t.Errorf("%d SMS arrived within 900 ms, the rate is %d/s", most, perSecond)
		}
		// Both worker processes sent (on PostgreSQL, where replicas run;
		// SQLite's second queue polls slowly and may take none).
		var workers []string
		if err := db.Select(context.Background(), &workers, `SELECT DISTINCT CAST(attempted_by AS TEXT) FROM river_job WHERE kind = ?`, notify.SendArgs{}.Kind()); err != nil {
			t.Fatal(err)
		}
		if db.Dialect() == store.Postgres && len(workers) < 2 {
			t.Errorf("the sends ran on %d worker processes, want both: %v", len(workers), workers)
		}
		var slots int
		if err := db.Get(context.Background(), &slots, `SELECT COUNT(*) FROM dunning_provider_pace WHERE provider = 'twilio'`); err != nil || slots != 1 {
			t.Errorf("pace rows %d: %v", slots, err)
		}
	})
}

// mostWithin is the largest number of the sorted instants at inside any
// window of length w.
func mostWithin(at []time.Time, w time.Duration) int {
	most, j := 0, 0
	for i := range at {
		for at[i].Sub(at[j]) >= w {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}
