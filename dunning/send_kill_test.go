package dunning

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/dunning/regua"
	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/messaging"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The kill test's times, in the order the queue requires: a send job's
// run is bounded by killSendTimeout, and River rescues a job running
// longer than killRescueAfter (its process died).
const (
	killSendTimeout = 3 * time.Second
	killRescueAfter = 4 * time.Second
)

// senderEnv, when set, makes the test binary a Dunning send worker that
// works send jobs until it is killed: the JSON of a senderConfig.
const senderEnv = "KOBANA_DUNNING_TEST_SENDER"

type senderConfig struct {
	DatabaseURL string                 `json:"database_url"`
	Twilio      messaging.TwilioConfig `json:"twilio"`
}

func TestMain(m *testing.M) {
	childproc.Serve(senderEnv, runSenderProcess)
	childproc.Serve(menderEnv, runMenderProcess)
	os.Exit(m.Run())
}

// sendOnlyNotifier is a notifier over db whose queue q knows only the send
// job, with the kill test's short timeout (the step runner and the sweep,
// with their minutes-long timeouts, would not fit a rescue time of
// seconds).
func sendOnlyNotifier(t testing.TB, db *store.DB, q *jobs.Queue, tw messaging.TwilioConfig) *regua.Notifier {
	ch, err := ledger.NewChannels(ledger.ChannelConfig{Twilio: &tw})
	if err != nil {
		if t != nil {
			t.Fatal(err)
		}
		panic(err)
	}
	n := notify.NewNotifier(layered(ledger.NewService(db, accounts.New(db, accounts.Options{}), q, nil, nil)).Service.Service, ch, ntLinkBase, nil)
	jobs.AddWorker(q, &notify.SendWorker{Notifier: n, Queue: q, SendTimeout: killSendTimeout})
	return &regua.Notifier{Notifier: n}
}

func killQueue(ctx context.Context, db *store.DB, logger *slog.Logger) (*jobs.Queue, error) {
	return jobs.New(ctx, db, jobs.Config{Work: true, PollInterval: 50 * time.Millisecond, JobTimeout: killSendTimeout,
		RescueAfter: killRescueAfter, Logger: logger})
}

// runSenderProcess is the worker process of TestSenderKilledMidSend.
func runSenderProcess(raw []byte) int {
	var cfg senderConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "sender:", err)
		return 2
	}
	ctx := context.Background()
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sender:", err)
		return 2
	}
	q, err := killQueue(ctx, db, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		fmt.Fprintln(os.Stderr, "sender:", err)
		return 2
	}
	sendOnlyNotifier(nil, db, q, cfg.Twilio)
	if err := q.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "sender:", err)
		return 2
	}
	fmt.Println("working")
	select {} // until killed
}

// TestSenderKilledMidSend: a separate worker process takes a queued SMS's
// send job, records the send as started, and is killed with SIGKILL while
// Twilio (a local server speaking its Messages API) holds the request.
// River rescues the job; a worker in this process runs it again, finds
// the provider call started with no outcome, and marks the notification
// unknown without calling Twilio again: the debtor may have the message,
// so only a person's resend (a new notification) sends it again.
func TestSenderKilledMidSend(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills a worker process")
	}
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, dbURL := storetest.OpenShared(t, engine, Migrations)
			tw := ntNewTwilio(t)
			twCfg := *tw.config()
			twCfg.Timeout = time.Minute // the kill, not the client's timeout, ends the call
			const phone = "+5511987654321"
			tw.mu.Lock()
			tw.script[phone] = []string{"hang"}
			tw.mu.Unlock()

			acc := accounts.New(db, accounts.Options{})
			org, err := acc.CreateOrganization(ctx, "Credora")
			if err != nil {
				t.Fatal(err)
			}
			ntSettings(t, db, org.ID, map[string]ledger.ChannelSetting{ledger.ChannelSMS: {Enabled: true, Provider: ledger.ProviderTwilio}}, 0)
			debtor := seedDebtor(t, db, debtorSeed{OrgID: org.ID, Name: "Rita", Phones: []string{phone}})
			charge := seedCharge(t, db, chargeSeed{OrgID: org.ID, DebtorID: debtor, Amount: 9990, Due: "2026-03-10"})

			// The API replica: writes the notification and its job, works
			// nothing.
			api, err := jobs.New(ctx, db, jobs.Config{Work: false, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			apiN := sendOnlyNotifier(t, db, api, twCfg)
			var id string
			if err := db.WithTx(ctx, func(tx *store.Tx) error {
				c, err := ledger.GetCharge(ctx, tx, org.ID, charge)
				if err != nil {
					return err
				}
				d, err := ledger.GetDebtor(ctx, tx, org.ID, debtor)
				if err != nil {
					return err
				}
				st, err := ledger.LoadSettings(ctx, tx, org.ID)
				if err != nil {
					return err
				}
				row, err := apiN.Compose(ctx, tx, st, notify.Draft{Debtor: d, Charge: &c, Channel: ledger.ChannelSMS, Body: "Lembrete: {{charge.updated_amount}}", Kind: notify.KindAdHoc, CreatedBy: "test"})
				if err != nil {
					return err
				}
				id = row.ID
				_, err = apiN.Queue(ctx, tx, row)
				return err
			}); err != nil {
				t.Fatal(err)
			}

			child := childproc.Start(t, senderEnv, senderConfig{DatabaseURL: dbURL, Twilio: twCfg})
			select {
			case <-tw.arrived:
			case <-time.After(60 * time.Second):
				t.Fatal("the worker process never called Twilio")
			}
			if got := ntNotification(t, db, id); got.Status != notify.NotificationSending || got.SendingAt == nil {
				t.Fatalf("while Twilio holds the request: %s", got.Status)
			}
			child.Kill(t)
			if got := ntNotification(t, db, id); got.Status != notify.NotificationSending {
				t.Fatalf("after the kill: %s, want still sending (nobody recorded an outcome)", got.Status)
			}

			// The surviving worker, once the job is stuck: River's leader
			// looks for stuck jobs when it starts and every 30 s.
			time.Sleep(killRescueAfter)
			survivor, err := killQueue(ctx, db, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			sendOnlyNotifier(t, db, survivor, twCfg)
			if err := survivor.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = survivor.Stop(sctx)
			})
			got := waitNotification(t, db, id, notify.NotificationUnknown, notify.NotificationSent, notify.NotificationFailed, notify.NotificationQueued)
			if got.Status != notify.NotificationUnknown || !bytes.Contains([]byte(deref(got.Error)), []byte("not sent again")) {
				t.Fatalf("after the rescue: %s (%s), want unknown", got.Status, deref(got.Error))
			}
			// Nothing more reaches Twilio: the one request is the one the
			// kill cut off.
			time.Sleep(time.Second)
			if reqs := tw.requests(); len(reqs) != 1 || reqs[0].Get("To") != phone {
				t.Fatalf("Twilio got %d requests, want only the one in flight at the kill", len(reqs))
			}
			if got := ntNotification(t, db, id); got.Status != notify.NotificationUnknown {
				t.Fatalf("the surviving worker moved the row to %s", got.Status)
			}
		})
	}
}
