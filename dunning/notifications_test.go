package dunning

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// A Monday in March 2026, 10:00 in São Paulo: inside the sending window.
var ntMonday = time.Date(2026, 3, 2, 13, 0, 0, 0, time.UTC)

type ntView struct {
	ID, DebtorID, Kind, Channel, To, Body, Status, Provider string
	ChargeID                                                *string `json:"charge_id"`
	Subject                                                 *string
	ResendOf                                                *string `json:"resend_of"`
	ProviderMessageID                                       *string `json:"provider_message_id"`
	Error                                                   *string
}

// The embedded default: with nothing configured every channel stays in
// the outbox — the message is kept in the log and marked sent, exactly as
// the debtor would have read it — and the log lists and filters it.
func TestOutboxNotificationLog(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ne := startNotify(t, db, ledger.ChannelConfig{}, ntMonday)
		org := ne.Mine.ID
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Maria da Silva", Emails: []string{"maria@example.com"}, Phones: []string{"+5511987654321"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 123456, Due: "2026-03-10", Description: "Mensalidade de março", PaymentLink: "https://pague.example/c/1"})

		code, body := ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{})
		n := data[ntView](t, code, body, 202)
		if n.Status != notify.NotificationQueued || n.Provider != ledger.ProviderOutbox || n.Channel != ledger.ChannelEmail || n.To != "maria@example.com" || n.Kind != notify.KindAdHoc {
			t.Fatalf("queued notification %+v", n)
		}
		for _, want := range []string{"Maria da Silva", "R$ 1.234,56", "10/03/2026", "https://pague.example/c/1", ntLinkBase + "/v1/unsubscribe/"} {
			if !strings.Contains(n.Body, want) {
				t.Errorf("body lacks %q:\n%s", want, n.Body)
			}
		}
		if n.Subject == nil || *n.Subject != "Lembrete de pagamento: Mensalidade de março" {
			t.Errorf("subject %v", n.Subject)
		}
		sent := waitNotification(t, db, n.ID, notify.NotificationSent)
		if sent.ProviderMessageID == nil || *sent.ProviderMessageID != "outbox-"+n.ID || sent.SentAt == nil || sent.SendingAt == nil {
			t.Errorf("sent row %+v", sent)
		}
		// An SMS with a template of the caller's.
		code, body = ne.Do(ne.Owner, "POST", "/v1/notifications", map[string]any{"debtor_id": "ext-" + debtor, "charge_id": charge,
			"channel": "sms", "body": "{{debtor.name}}, pague {{charge.updated_amount}}"})
		sms := data[ntView](t, code, body, 202)
		if sms.Body != "Maria da Silva, pague R$ 1.234,56" || sms.To != "+5511987654321" || sms.Subject != nil {
			t.Fatalf("sms %+v", sms)
		}
		waitNotification(t, db, sms.ID, notify.NotificationSent)

		all := list[ntView](t, ne.Env, "/v1/notifications")
		if all.Meta.Total != 2 || len(all.Data) != 2 || all.Data[0].ID != sms.ID {
			t.Fatalf("log %+v", all)
		}
		for path, want := range map[string]int{
			"/v1/notifications?channel=sms":                         1,
			"/v1/notifications?status=sent&charge_id=" + charge:     2,
			"/v1/notifications?status=failed,unknown":               0,
			"/v1/notifications?debtor_id=" + debtor + "&per_page=1": 2,
		} {
			if got := list[ntView](t, ne.Env, path); got.Meta.Total != want {
				t.Errorf("%s: total %d, want %d", path, got.Meta.Total, want)
			}
		}
		code, body = ne.Do(ne.Owner, "GET", "/v1/notifications/"+n.ID, nil)
		if got := data[ntView](t, code, body, 200); got.Status != notify.NotificationSent || got.Body != n.Body {
			t.Errorf("get %+v", got)
		}
		// Another organization sees none of it.
		for _, path := range []string{"/v1/notifications/" + n.ID, "/v1/notifications?charge_id=" + charge} {
			if code, body := ne.Do(ne.Other, "GET", path, nil); code != 404 || !strings.Contains(body, `"NOT_FOUND"`) {
				t.Errorf("other organization GET %s: %d %s", path, code, body)
			}
		}
		if code, body := ne.Do(ne.Other, "POST", "/v1/charges/"+charge+"/notify", map[string]any{}); code != 404 {
			t.Errorf("other organization notify: %d %s", code, body)
		}
		if code, body := ne.Do(ne.Other, "POST", "/v1/notifications/"+n.ID+"/resend", map[string]any{}); code != 404 {
			t.Errorf("other organization resend: %d %s", code, body)
		}
		// Strict reads and validated writes.
		if code, body := ne.Do(ne.Owner, "GET", "/v1/notifications?state=sent", nil); code != 422 || !strings.Contains(body, "state") {
			t.Errorf("unknown filter: %d %s", code, body)
		}
		if code, body := ne.Do(ne.Owner, "GET", "/v1/notifications?status=lost", nil); code != 422 {
			t.Errorf("bad status: %d %s", code, body)
		}
		for name, c := range map[string]struct {
			path  string
			body  map[string]any
			field string
		}{
			"unknown variable":      {"/v1/notifications", map[string]any{"debtor_id": debtor, "channel": "email", "body": "Olá {{debtor.nome}}"}, "body"},
			"charge var, no charge": {"/v1/notifications", map[string]any{"debtor_id": debtor, "channel": "sms", "body": "{{charge.due_date}}"}, "body"},
			"subject on sms":        {"/v1/charges/" + charge + "/notify", map[string]any{"channel": "sms", "subject": "x"}, "subject"},
			"foreign address":       {"/v1/charges/" + charge + "/notify", map[string]any{"to": "someone@else.example"}, "to"},
			"unknown field":         {"/v1/charges/" + charge + "/notify", map[string]any{"chanel": "sms"}, "chanel"},
		} {
			code, body := ne.Do(ne.Owner, "POST", c.path, c.body)
			got, fields := errorOf(body)
			if code != 422 || got != "VALIDATION_ERROR" || !strings.Contains(strings.Join(fields, ","), c.field) {
				t.Errorf("%s: %d %s", name, code, body)
			}
		}
		// Resend: a new row naming the original; a queued one cannot be.
		code, body = ne.Do(ne.Owner, "POST", "/v1/notifications/"+n.ID+"/resend", map[string]any{})
		re := data[ntView](t, code, body, 202)
		if re.ResendOf == nil || *re.ResendOf != n.ID || re.Kind != notify.KindResend || re.Body != n.Body || re.ID == n.ID {
			t.Fatalf("resend %+v", re)
		}
		waitNotification(t, db, re.ID, notify.NotificationSent)

		// A paid charge is not collected: nothing more is sent about it.
		ne.closeCharge(t, charge)
		for _, c := range []struct{ path, body string }{
			{"/v1/charges/" + charge + "/notify", `{}`},
			{"/v1/notifications/" + n.ID + "/resend", `{}`},
		} {
			if code, body := ne.Do(ne.Owner, "POST", c.path, c.body); code != 422 || !strings.Contains(body, `"UNPROCESSABLE"`) || !strings.Contains(body, "paid") {
				t.Errorf("POST %s on a paid charge: %d %s", c.path, code, body)
			}
		}
		// The events of each send.
		sentEvents := 0
		for _, s := range ntEvents(t, db, org) {
			if s == notify.EventNotificationSent {
				sentEvents++
			}
		}
		if sentEvents != 3 {
			t.Errorf("%d dunning.notification.sent events, want 3: %v", sentEvents, ntEvents(t, db, org))
		}
	})
}

// Viewers read the log; only admins send (every send is destructive), and
// an MCP client that cannot confirm is refused without anything sent.
func TestNotificationRolesAndConfirmation(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ne := startNotify(t, db, ledger.ChannelConfig{}, ntMonday)
		org := ne.Mine.ID
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Ana", Emails: []string{"ana@example.com"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 1000, Due: "2026-03-10"})
		text, isErr := ne.Call(ne.Owner, "dunning_charges_notify", map[string]any{"id": charge})
		if !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("unconfirmed notify: %v %s", isErr, text)
		}
		if got := ntNotifications(t, db, org); len(got) != 0 {
			t.Fatalf("an unconfirmed call sent %d messages", len(got))
		}
		text, isErr = ne.Call(ne.Owner, "dunning_notifications_list", map[string]any{})
		var page struct{ Data []any }
		if isErr || json.Unmarshal([]byte(text), &page) != nil {
			t.Fatalf("list through MCP: %v %s", isErr, text)
		}
		for _, op := range []string{"dunning_charges_notify", "dunning_notifications_create", "dunning_notifications_resend",
			"dunning_approvals_approve", "dunning_approvals_reject"} {
			tool := toolOf(t, op)
			if !*tool.Annotations.DestructiveHint || *tool.Annotations.OpenWorldHint || tool.Requires != "admin" {
				t.Errorf("%s: %+v", op, tool)
			}
		}
		for _, op := range []string{"dunning_charges_notify", "dunning_notifications_create", "dunning_notifications_resend"} {
			if *toolOf(t, op).Annotations.IdempotentHint {
				t.Errorf("%s says idempotent, but repeating it sends again", op)
			}
		}
	})
}

type ntTool struct {
	Annotations struct {
		ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint *bool
	}
	Requires string
}

// toolOf reads an operation's hints and role from the API's declarations.
func toolOf(t *testing.T, id string) ntTool {
	t.Helper()
	l, err := productCatalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range l.API.Operations() {
		if op.ID == id {
			var tool ntTool
			a := op.Annotations
			tool.Annotations.ReadOnlyHint, tool.Annotations.DestructiveHint = a.ReadOnlyHint, a.DestructiveHint
			tool.Annotations.IdempotentHint, tool.Annotations.OpenWorldHint = a.IdempotentHint, a.OpenWorldHint
			tool.Requires = map[string]string{"read": "viewer", "write": "member", "manage": "admin"}[op.Requires.Permission]
			return tool
		}
	}
	t.Fatalf("no operation %s", id)
	return ntTool{}
}

// dunning_charges_notify over MCP: a 2026 client that can answer a form
// is asked, with the channel, the address and the charge named; accepting
// sends once (the confirmation is spent in the transaction that queues
// the message, so replaying the answer sends nothing more).
func TestNotifyConfirmation(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ne := startNotify(t, db, ledger.ChannelConfig{}, ntMonday)
		org := ne.Mine.ID
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Ana", Emails: []string{"ana@example.com"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 1000, Due: "2026-03-10", Description: "Aluguel"})
		call := func(state, responses string) (reply struct {
			Result struct {
				ResultType    string         `json:"resultType"`
				InputRequests map[string]any `json:"inputRequests"`
				RequestState  string         `json:"requestState"`
				Content       []struct{ Text string }
				IsError       bool `json:"isError"`
			}
			Error *struct{ Code int }
		}, raw string) {
			params := map[string]any{"name": "dunning_charges_notify", "arguments": map[string]any{"id": charge},
				"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
					"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
			if state != "" {
				params["requestState"] = state
				params["inputResponses"] = json.RawMessage(responses)
			}
			raw = ne.RPC(ne.Owner, "tools/call", params)
			if err := json.Unmarshal([]byte(raw), &reply); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			return reply, raw
		}
		first, raw := call("", "")
		if first.Result.ResultType != "input_required" {
			t.Fatalf("first call: %s", raw)
		}
		var key string
		for k := range first.Result.InputRequests {
			key = k
		}
		msg := first.Result.InputRequests[key].(map[string]any)["params"].(map[string]any)["message"].(string)
		if want := "Send e-mail to ana@example.com about charge " + charge + " (Aluguel, due 10/03/2026)? The message reaches the debtor and cannot be recalled."; msg != want {
			t.Fatalf("message %q, want %q", msg, want)
		}
		if n := len(ntNotifications(t, db, org)); n != 0 {
			t.Fatalf("%d messages before the answer", n)
		}
		accept := `{"` + key + `":{"action":"accept","content":{"confirm":true}}}`
		done, raw := call(first.Result.RequestState, accept)
		if done.Result.IsError || len(done.Result.Content) == 0 || !strings.Contains(done.Result.Content[0].Text, `"status": "queued"`) {
			t.Fatalf("accepted: %s", raw)
		}
		if again, raw := call(first.Result.RequestState, accept); again.Error == nil || again.Error.Code != -32602 {
			t.Fatalf("replayed answer: %s", raw)
		}
		if n := len(ntNotifications(t, db, org)); n != 1 {
			t.Fatalf("%d messages, want 1", n)
		}
	})
}
