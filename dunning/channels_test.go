package dunning

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
)

// E-mail over a real SMTP relay in the test process: the message arrives
// with the notification's id as its Message-ID, the signed one-click
// List-Unsubscribe, and the same link in its last line; the link's page
// does not unsubscribe by itself, its POST does (once, idempotent), and
// from then on the debtor is never e-mailed again.
func TestEmailOverSMTPWithUnsubscribe(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		relay := &ntRelay{rcptErr: map[string]*smtp.SMTPError{
			"gone@example.com": {Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}}}
		ne := startNotify(t, db, ledger.ChannelConfig{SMTP: ntStartRelay(t, relay)}, ntMonday)
		org := ne.Mine.ID
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{ledger.ChannelEmail: {Enabled: true, Provider: ledger.ProviderSMTP}}, 0)
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "João", Emails: []string{"joao@example.com", "gone@example.com"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 50000, Due: "2026-03-10", Description: "Aluguel"})

		code, body := ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{})
		n := data[ntView](t, code, body, 202)
		if n.Provider != ledger.ProviderSMTP {
			t.Fatalf("provider %s", n.Provider)
		}
		sent := waitNotification(t, db, n.ID, notify.NotificationSent)
		msgs := relay.messages()
		if len(msgs) != 1 {
			t.Fatalf("the relay got %d messages", len(msgs))
		}
		m, err := mail.ReadMessage(strings.NewReader(msgs[0].Data))
		if err != nil {
			t.Fatal(err)
		}
		if msgs[0].User != "dunning" || msgs[0].From != "cobranca@mine.example" || msgs[0].To[0] != "joao@example.com" {
			t.Errorf("envelope %+v", msgs[0])
		}
		if got := m.Header.Get("Message-Id"); got != "<"+n.ID+"@mine.example>" || sent.ProviderMessageID == nil || *sent.ProviderMessageID != n.ID+"@mine.example" {
			t.Errorf("Message-ID %q, provider id %v", got, sent.ProviderMessageID)
		}
		unsub := m.Header.Get("List-Unsubscribe")
		if !strings.HasPrefix(unsub, "<"+ntLinkBase+"/v1/unsubscribe/") || m.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Fatalf("List-Unsubscribe %q, -Post %q", unsub, m.Header.Get("List-Unsubscribe-Post"))
		}
		link := strings.Trim(unsub, "<>")
		if !strings.Contains(n.Body, link) {
			t.Errorf("the body does not carry the link %s:\n%s", link, n.Body)
		}
		path := strings.TrimPrefix(link, ntLinkBase)

		// The page asks; a tampered link is refused.
		code, _, page := ne.DoFull("", "GET", path, nil)
		if code != 200 || !strings.Contains(page, `id="confirm"`) {
			t.Fatalf("GET link: %d %s", code, page)
		}
		if code, _, _ := ne.DoFull("", "POST", path[:len(path)-3]+"AAA", "List-Unsubscribe=One-Click"); code != 404 {
			t.Errorf("tampered link: %d", code)
		}
		if d, _ := ledger.GetDebtor(context.Background(), db, org, debtor); d.OptedOut(ledger.ChannelEmail) {
			t.Fatal("a GET (or a bad link) opted the debtor out")
		}
		// The mail client's one-click POST, twice.
		for i := 0; i < 2; i++ {
			code, _, page := ne.DoFull("", "POST", path, "List-Unsubscribe=One-Click", "Content-Type", "application/x-www-form-urlencoded")
			if code != 200 || !strings.Contains(page, "Descadastro confirmado") {
				t.Fatalf("POST link #%d: %d %s", i+1, code, page)
			}
		}
		d, err := ledger.GetDebtor(context.Background(), db, org, debtor)
		if err != nil || len(d.OptOuts) != 1 || d.OptOuts[0].Channel != ledger.ChannelEmail || d.OptOuts[0].Reason != notify.UnsubscribeReason || d.OptOuts[0].Source != "debtor" {
			t.Fatalf("opt-outs %+v %v", d.OptOuts, err)
		}
		// Never e-mailed again: refused now, and a message queued before
		// the opt-out is skipped when its job runs.
		if code, body := ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{}); code != 422 || !strings.Contains(body, "opted out of email") {
			t.Errorf("notify after the opt-out: %d %s", code, body)
		}
		if code, body := ne.Do(ne.Owner, "POST", "/v1/notifications/"+n.ID+"/resend", map[string]any{}); code != 422 {
			t.Errorf("resend after the opt-out: %d %s", code, body)
		}
		if len(relay.messages()) != 1 {
			t.Errorf("the relay got %d messages, want still 1", len(relay.messages()))
		}
	})
}

// The relay's permanent refusal fails the notification (with the event);
// nothing is retried.
func TestEmailPermanentRefusal(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		relay := &ntRelay{rcptErr: map[string]*smtp.SMTPError{
			"gone@example.com": {Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}}}
		ne := startNotify(t, db, ledger.ChannelConfig{SMTP: ntStartRelay(t, relay)}, ntMonday)
		org := ne.Mine.ID
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{ledger.ChannelEmail: {Enabled: true, Provider: ledger.ProviderSMTP}}, 0)
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "João", Emails: []string{"gone@example.com"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 50000, Due: "2026-03-10"})
		code, body := ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{})
		n := data[ntView](t, code, body, 202)
		failed := waitNotification(t, db, n.ID, notify.NotificationFailed)
		if failed.Error == nil || !strings.Contains(*failed.Error, "5.1.1") || failed.FailedAt == nil {
			t.Errorf("failed row %+v", failed)
		}
		eventually(t, "dunning.notification.failed", func() bool {
			return strings.Contains(strings.Join(ntEvents(t, db, org), ","), notify.EventNotificationFailed)
		})
	})
}

// SMS and WhatsApp through a local server speaking Twilio's Messages API:
// the request carries the row's own status callback; signed callbacks
// move the row (delivered, read), in order whatever order they arrive
// in, with their events; an unsigned or foreign callback changes
// nothing; Twilio's permanent error fails the message, a 5xx is retried.
func TestTwilioChannelsAndCallbacks(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		tw := ntNewTwilio(t)
		ne := startNotify(t, db, ledger.ChannelConfig{Twilio: tw.config()}, ntMonday)
		org := ne.Mine.ID
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{
			ledger.ChannelSMS:      {Enabled: true, Provider: ledger.ProviderTwilio},
			ledger.ChannelWhatsApp: {Enabled: true, Provider: ledger.ProviderTwilio}}, 0)
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Rita", Phones: []string{"+5511987654321", "+5511900000500", "+5511900000400"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 9990, Due: "2026-03-10"})

		code, body := ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{"channel": "sms"})
		n := data[ntView](t, code, body, 202)
		sent := waitNotification(t, db, n.ID, notify.NotificationSent)
		reqs := tw.requests()
		if len(reqs) != 1 {
			t.Fatalf("twilio got %d requests", len(reqs))
		}
		form := reqs[0]
		callbackURL := ntLinkBase + "/v1/callbacks/twilio/" + n.ID
		if form.Get("To") != "+5511987654321" || form.Get("From") != ntTwilioFrom || form.Get("Body") != n.Body || form.Get("StatusCallback") != callbackURL {
			t.Fatalf("twilio form %v", form)
		}
		sid := *sent.ProviderMessageID
		cb := func(status string, extra ...string) url.Values {
			v := url.Values{"MessageSid": {sid}, "MessageStatus": {status}, "AccountSid": {ntTwilioSID}, "To": {"+5511987654321"}, "From": {ntTwilioFrom}}
			for i := 0; i+1 < len(extra); i += 2 {
				v.Set(extra[i], extra[i+1])
			}
			return v
		}
		// A forged callback is refused and changes nothing.
		if code := ne.callback(t, callbackURL, cb("failed"), "not-the-token"); code != http.StatusForbidden {
			t.Errorf("forged callback: %d", code)
		}
		if code := ne.callback(t, callbackURL, cb("delivered"), ntTwilioToken); code != http.StatusNoContent {
			t.Fatalf("delivered callback: %d", code)
		}
		// A late "sent" does not take "delivered" back.
		if code := ne.callback(t, callbackURL, cb("sent"), ntTwilioToken); code != http.StatusNoContent {
			t.Fatalf("late sent callback: %d", code)
		}
		if got := ntNotification(t, db, n.ID); got.Status != notify.NotificationDelivered || got.DeliveredAt == nil {
			t.Fatalf("after the callbacks: %s", got.Status)
		}
		// A callback naming another message of ours is ignored.
		other := cb("failed")
		other.Set("MessageSid", "SM"+strings.Repeat("9", 32))
		if code := ne.callback(t, callbackURL, other, ntTwilioToken); code != http.StatusNoContent {
			t.Fatalf("foreign sid: %d", code)
		}
		if got := ntNotification(t, db, n.ID); got.Status != notify.NotificationDelivered {
			t.Fatalf("a foreign sid moved the row to %s", got.Status)
		}
		if code := ne.callback(t, ntLinkBase+"/v1/callbacks/twilio/"+store.NewID(), cb("delivered"), ntTwilioToken); code != http.StatusNotFound {
			t.Errorf("unknown notification: %d", code)
		}

		// WhatsApp, read receipt.
		code, body = ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{"channel": "whatsapp"})
		wa := data[ntView](t, code, body, 202)
		waSent := waitNotification(t, db, wa.ID, notify.NotificationSent)
		reqs = tw.requests()
		if f := reqs[len(reqs)-1]; f.Get("To") != "whatsapp:+5511987654321" || f.Get("From") != "whatsapp:"+ntTwilioWA {
			t.Fatalf("whatsapp form %v", f)
		}
		read := url.Values{"MessageSid": {*waSent.ProviderMessageID}, "MessageStatus": {"read"}, "To": {"whatsapp:+5511987654321"}}
		if code := ne.callback(t, ntLinkBase+"/v1/callbacks/twilio/"+wa.ID, read, ntTwilioToken); code != http.StatusNoContent {
			t.Fatalf("read callback: %d", code)
		}
		if got := ntNotification(t, db, wa.ID); got.Status != notify.NotificationOpened {
			t.Fatalf("after read: %s", got.Status)
		}

		// Twilio's 500 is retried (the request certainly did nothing);
		// its 400 invalid number fails the message at once.
		tw.mu.Lock()
		tw.script["+5511900000500"] = []string{"500", "500"}
		tw.script["+5511900000400"] = []string{"400"}
		tw.mu.Unlock()
		code, body = ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{"channel": "sms", "to": "+5511900000500"})
		retried := data[ntView](t, code, body, 202)
		code, body = ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{"channel": "sms", "to": "+5511900000400"})
		refused := data[ntView](t, code, body, 202)
		waitNotification(t, db, retried.ID, notify.NotificationSent)
		if got := waitNotification(t, db, refused.ID, notify.NotificationFailed); got.Error == nil || !strings.Contains(*got.Error, "21211") {
			t.Errorf("refused: %+v", got)
		}
		attempts := 0
		for _, f := range tw.requests() {
			if f.Get("To") == "+5511900000500" {
				attempts++
			}
		}
		if attempts != 3 {
			t.Errorf("the 500 number was tried %d times, want 3", attempts)
		}
		// A failure callback after delivery-less sending: failed, with the
		// event and Twilio's code.
		fcb := url.Values{"MessageSid": {*ntNotification(t, db, retried.ID).ProviderMessageID}, "MessageStatus": {"undelivered"}, "ErrorCode": {"30003"}}
		if code := ne.callback(t, ntLinkBase+"/v1/callbacks/twilio/"+retried.ID, fcb, ntTwilioToken); code != http.StatusNoContent {
			t.Fatalf("undelivered callback: %d", code)
		}
		if got := ntNotification(t, db, retried.ID); got.Status != notify.NotificationFailed || !strings.Contains(deref(got.Error), "30003") {
			t.Errorf("after undelivered: %+v", got)
		}
		slugs := strings.Join(ntEvents(t, db, org), ",")
		for _, want := range []string{notify.EventNotificationSent, notify.EventNotificationDelivered, notify.EventNotificationFailed} {
			if !strings.Contains(slugs, want) {
				t.Errorf("no %s event in %s", want, slugs)
			}
		}
	})
}

// A worker cut off in the middle of a send — the provider holds the
// request, the queue is stopped hard — leaves the notification unknown:
// the provider may have it. Another worker never sends it again by
// itself; a resend is a person's decision and a new notification.
func TestWorkerCutOffMidSendIsUnknownAndNeverResent(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		tw := ntNewTwilio(t)
		ne := startNotify(t, db, ledger.ChannelConfig{Twilio: tw.config()}, ntMonday)
		org := ne.Mine.ID
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{ledger.ChannelSMS: {Enabled: true, Provider: ledger.ProviderTwilio}}, 0)
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Rita", Phones: []string{"+5511987654321"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 9990, Due: "2026-03-10"})
		tw.mu.Lock()
		tw.script["+5511987654321"] = []string{"hang"}
		tw.mu.Unlock()

		code, body := ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{"channel": "sms"})
		n := data[ntView](t, code, body, 202)
		select {
		case <-tw.arrived:
		case <-time.After(testWait):
			t.Fatal("the provider never got the request")
		}
		if got := ntNotification(t, db, n.ID); got.Status != notify.NotificationSending || got.SendingAt == nil {
			t.Fatalf("while the provider holds it: %s", got.Status)
		}
		// The hard stop: the grace runs out, the job is cancelled.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if err := ne.Jobs.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Stop = %v, want the grace to run out", err)
		}
		got := waitNotification(t, db, n.ID, notify.NotificationUnknown)
		if got.Error == nil || !strings.Contains(*got.Error, "not sent again") {
			t.Errorf("unknown row %+v", got)
		}
		// Another worker runs whatever is left: nothing is sent again.
		ne.secondQueue(t)
		time.Sleep(500 * time.Millisecond)
		if reqs := tw.requests(); len(reqs) != 1 {
			t.Fatalf("twilio got %d requests, want only the one cut off", len(reqs))
		}
		if got := ntNotification(t, db, n.ID); got.Status != notify.NotificationUnknown {
			t.Fatalf("the second worker moved the row to %s", got.Status)
		}
		// A person decides: resend is a new notification.
		code, body = ne.Do(ne.Owner, "POST", "/v1/notifications/"+n.ID+"/resend", map[string]any{})
		re := data[ntView](t, code, body, 202)
		waitNotification(t, db, re.ID, notify.NotificationSent)
		if reqs := tw.requests(); len(reqs) != 2 {
			t.Fatalf("after the resend twilio got %d requests, want 2", len(reqs))
		}
	})
}

// The settings of the deployment's providers: unset keeps the outbox;
// half a configuration is refused with the setting's name.
func TestChannelSettings(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (ledger.ChannelConfig, error) {
		var c ledger.ChannelConfig
		s := &productkit.Settings{}
		check := c.Settings(s)
		if err := s.Parse("serve", args, io.Discard); err != nil {
			return c, err
		}
		return c, check()
	}
	c, err := parse()
	if err != nil || c.SMTP != nil || c.Twilio != nil {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	ch, _ := ledger.NewChannels(c)
	if got := ch.Providers(ledger.ChannelEmail); len(got) != 1 || got[0] != ledger.ProviderOutbox {
		t.Errorf("providers without settings: %v", got)
	}
	c, err = parse("--dunning-smtp-host", "smtp.example.com", "--dunning-smtp-from", "Cobrança <c@example.com>", "--dunning-smtp-username", "u",
		"--dunning-twilio-account-sid", ntTwilioSID, "--dunning-twilio-auth-token", "t", "--dunning-twilio-from", "+15005550006")
	if err != nil || c.SMTP == nil || c.SMTP.Port != 0 || c.Twilio == nil || c.Twilio.BaseURL != "https://api.twilio.com" {
		t.Fatalf("configured: %+v %v", c, err)
	}
	ch, _ = ledger.NewChannels(c)
	if !ch.Offers(ledger.ChannelEmail, ledger.ProviderSMTP) || !ch.Offers(ledger.ChannelSMS, ledger.ProviderTwilio) || ch.Offers(ledger.ChannelWhatsApp, ledger.ProviderTwilio) || ch.Offers(ledger.ChannelSMS, ledger.ProviderSMTP) {
		t.Errorf("offers: %v %v %v", ch.Providers(ledger.ChannelEmail), ch.Providers(ledger.ChannelSMS), ch.Providers(ledger.ChannelWhatsApp))
	}
	// An organization that chose a provider the deployment lacks is kept
	// in the outbox.
	st := ledger.DefaultSettings("org")
	st.Channels[ledger.ChannelWhatsApp] = ledger.ChannelSetting{Enabled: true, Provider: ledger.ProviderTwilio}
	if p, on := ch.Resolve(st, ledger.ChannelWhatsApp); p != ledger.ProviderOutbox || !on {
		t.Errorf("resolve whatsapp: %s %v", p, on)
	}
	for _, bad := range [][]string{
		{"--dunning-smtp-host", "smtp.example.com"},
		{"--dunning-smtp-from", "c@example.com"},
		{"--dunning-smtp-host", "smtp.example.com", "--dunning-smtp-from", "c@example.com", "--dunning-smtp-tls", "maybe"},
		{"--dunning-smtp-host", "smtp.example.com", "--dunning-smtp-from", "c@example.com", "--dunning-smtp-tls", "none"},
		{"--dunning-twilio-account-sid", ntTwilioSID, "--dunning-twilio-from", "+15005550006"},
		{"--dunning-twilio-auth-token", "t"},
		{"--dunning-twilio-account-sid", ntTwilioSID, "--dunning-twilio-auth-token", "t", "--dunning-twilio-from", "+1", "--dunning-twilio-base-url", "http://api.example.com"},
	} {
		if _, err := parse(bad...); err == nil || !strings.Contains(err.Error(), "--dunning-") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// What a worker that died mid-send (kill -9, a lost machine) leaves
// behind, once the queue rescues its job: the row sending and, in the
// job's record, the provider call started with no outcome. The next run
// finds it unknown and never calls the provider. A worker that died after
// committing sending but before starting the call left no call record:
// that one is sent, once.
func TestDeadWorkerLeftovers(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		tw := ntNewTwilio(t)
		ne := startNotify(t, db, ledger.ChannelConfig{Twilio: tw.config()}, ntMonday)
		org := ne.Mine.ID
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{ledger.ChannelSMS: {Enabled: true, Provider: ledger.ProviderTwilio}}, 0)
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Rita", Phones: []string{"+5511987654321"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 9990, Due: "2026-03-10"})
		ctx := context.Background()
		leave := func(callStarted bool) string {
			t.Helper()
			var id string
			err := db.WithTx(ctx, func(tx *store.Tx) error {
				c, err := ledger.GetCharge(ctx, tx, org, charge)
				if err != nil {
					return err
				}
				d, err := ledger.GetDebtor(ctx, tx, org, debtor)
				if err != nil {
					return err
				}
				st, _ := ledger.LoadSettings(ctx, tx, org)
				row, err := ne.n.Compose(ctx, tx, st, notify.Draft{Debtor: d, Charge: &c, Channel: ledger.ChannelSMS, Body: "Lembrete", Kind: notify.KindAdHoc, CreatedBy: "test"})
				if err != nil {
					return err
				}
				now := ne.clock.Now()
				row.Status, row.SendingAt, id = notify.NotificationSending, &now, row.ID
				if _, err := notify.InsertNotification(ctx, tx, row); err != nil {
					return err
				}
				opts := &river.InsertOpts{MaxAttempts: notify.SendAttempts}
				if callStarted {
					opts.Metadata = []byte(`{"kobana:call:send":{"state":"started","attempts":1,"unknown":0,"started_at":"2026-03-02T13:00:00Z","finished_at":null,"error":""}}`)
				}
				_, err = ne.Jobs.EnqueueTx(ctx, tx, notify.SendArgs{OrganizationID: org, NotificationID: row.ID}, opts)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		started := leave(true)
		got := waitNotification(t, db, started, notify.NotificationUnknown)
		if !strings.Contains(deref(got.Error), "never recorded an outcome") {
			t.Errorf("unknown row's error: %s", deref(got.Error))
		}
		if n := len(tw.requests()); n != 0 {
			t.Fatalf("the provider was called %d times for a send whose outcome is unknown", n)
		}
		notStarted := leave(false)
		waitNotification(t, db, notStarted, notify.NotificationSent)
		if n := len(tw.requests()); n != 1 {
			t.Fatalf("the provider was called %d times, want once for the send that never started", n)
		}
	})
}

// An organization chooses among the providers the deployment configured:
// smtp only with a relay, twilio only with an account and a sender for
// the channel.
func TestSettingsOfferOnlyConfiguredProviders(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		bare := startNotify(t, db, ledger.ChannelConfig{}, ntMonday)
		for _, ch := range []map[string]any{{"email": map[string]any{"provider": "smtp"}}, {"sms": map[string]any{"provider": "twilio"}}} {
			code, body := bare.Do(bare.Owner, "PATCH", "/v1/settings", map[string]any{"channels": ch})
			if got, fields := errorOf(body); code != 422 || got != "VALIDATION_ERROR" || len(fields) != 1 || !strings.Contains(body, "not configured in this deployment") {
				t.Errorf("%v without the provider: %d %s", ch, code, body)
			}
		}
		tw := ntNewTwilio(t)
		cfg := tw.config()
		cfg.WhatsAppFrom = ""
		full := startNotify(t, storetest.Open(t, db.Dialect(), Migrations), ledger.ChannelConfig{SMTP: ntStartRelay(t, &ntRelay{}), Twilio: cfg}, ntMonday)
		code, body := full.Do(full.Owner, "PATCH", "/v1/settings", map[string]any{"channels": map[string]any{
			"email": map[string]any{"provider": "smtp"}, "sms": map[string]any{"provider": "twilio"}}})
		if code != 200 || !strings.Contains(body, `"provider":"smtp"`) || !strings.Contains(body, `"provider":"twilio"`) {
			t.Fatalf("configured providers: %d %s", code, body)
		}
		code, body = full.Do(full.Owner, "PATCH", "/v1/settings", map[string]any{"channels": map[string]any{"whatsapp": map[string]any{"provider": "twilio"}}})
		if _, fields := errorOf(body); code != 422 || len(fields) != 1 || fields[0] != "channels.whatsapp.provider" {
			t.Errorf("whatsapp without a WhatsApp sender: %d %s", code, body)
		}
	})
}
