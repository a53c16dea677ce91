package dunning

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestPayments: a partial payment lowers the open amount; the one that
// clears it (the updated amount, fine and interest included) marks the
// charge paid, emits dunning.charge.paid and stops its collection; more
// than the charge costs, a payment from the future and bad fields are
// refused.
func TestPayments(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria", cpfOK)
		c := ce.charge(obj{"debtor_id": "maria", "external_id": "inv-9", "amount": 1000, "due_date": "2026-03-10", "fine_percent": 2, "interest_percent": 1})
		id := c["id"].(string)
		path := "/v1/charges/" + id + "/payments"

		code, out := ce.call(ce.Member, "POST", path, obj{"amount": 400.004, "method": "pix", "reference": "E2E-1", "paid_at": "2026-03-10T10:00:00-03:00"})
		p, _ := out["data"].(obj)
		if code != 201 || num(p, "amount") != 400 || p["method"] != "pix" || p["reference"] != "E2E-1" || p["paid_at"] != "2026-03-10T13:00:00Z" ||
			p["created_by"] != ce.Member.ID || p["charge"].(obj)["status"] != "pending" || num(p["charge"].(obj), "open_amount") != 600 ||
			num(p["charge"].(obj), "paid_amount") != 400 {
			t.Fatalf("partial: %d %v", code, out)
		}
		for _, tc := range []struct {
			body  obj
			field string
		}{
			{obj{"amount": -5}, "amount"},
			{obj{"amount": 0}, "amount"},
			{obj{}, "amount"},
			{obj{"amount": 1, "method": "cheque"}, "method"},
			{obj{"amount": 1, "paid_at": "yesterday"}, "paid_at"},
			{obj{"amount": 1, "paid_at": "2026-03-11T12:00:00-03:00"}, "paid_at"},
		} {
			fields, _ := ce.fails(ce.Member, 422, "VALIDATION_ERROR", "POST", path, tc.body)
			wantFields(t, fields, tc.field)
		}
		ce.fails(ce.Viewer, 403, "FORBIDDEN", "POST", path, obj{"amount": 1})
		_, msg := ce.fails(ce.Member, 422, "UNPROCESSABLE", "POST", path, obj{"amount": 600.01})
		if msg != "the payment of R$ 600,01 is more than the R$ 600,00 the charge costs on 10/03/2026 (open amount R$ 600,00, fine R$ 0,00, interest R$ 0,00)" {
			t.Fatalf("overpayment: %q", msg)
		}

		// 45 days later it costs 600 + 2 % (12,00) + 1 % × 45/30 (9,00).
		ce.clock.Set(time.Date(2026, 4, 24, 15, 0, 0, 0, brasilia))
		if got := ce.ok(200, "GET", "/v1/charges/"+id, nil); num(got, "updated_amount") != 621 {
			t.Fatalf("before paying: %v", got)
		}
		p = ce.ok(201, "POST", path, obj{"amount": 621, "method": "bank_billet"})
		ch := p["charge"].(obj)
		if ch["status"] != "paid" || num(ch, "open_amount") != 0 || num(ch, "updated_amount") != 0 || ch["paid_at"] != "2026-04-24T18:00:00Z" || num(ch, "paid_amount") != 1000 {
			t.Fatalf("paid: %v", p)
		}
		if ev := ce.events(id); strings.Join(ev, ",") != ledger.EventChargeCreated+","+ledger.EventPaymentRecorded+","+ledger.EventPaymentRecorded+","+ledger.EventChargePaid {
			t.Fatalf("events: %v", ev)
		}
		if calls := ce.closedCalls(); len(calls) != 1 || calls[0] != id+":paid" {
			t.Fatalf("onChargeClosed: %v", calls)
		}
		got := ce.ok(200, "GET", "/v1/charges/inv-9", nil)
		if pays := got["payments"].([]any); len(pays) != 2 || num(pays[0].(obj), "amount") != 400 || num(pays[1].(obj), "amount") != 621 {
			t.Fatalf("payments: %v", got["payments"])
		}
		// The paid event carries the charge as the API shows it.
		var payload string
		if err := db.Get(t.Context(), &payload, `SELECT payload FROM system_events WHERE subject_id = ? AND slug = ?`, id, ledger.EventChargePaid); err != nil {
			t.Fatal(err)
		}
		var env struct {
			Data struct {
				Charge       map[string]any `json:"charge"`
				Organization map[string]any `json:"organization"`
			}
		}
		if err := json.Unmarshal([]byte(payload), &env); err != nil || env.Data.Charge["status"] != "paid" || env.Data.Charge["external_id"] != "inv-9" ||
			env.Data.Organization["id"] != ce.Mine.ID {
			t.Fatalf("payload %s %v", payload, err)
		}
		if c := ce.ok(200, "GET", "/v1/me", nil)["counts"].(obj); num(c, "open_charges") != 0 {
			t.Fatalf("counts after payment: %v", c)
		}
	})
}

// TestCoreIdempotency: a write repeated with its X-Idempotency-Key
// replays its first answer and does nothing again; the key with another
// body is CONFLICT.
func TestCoreIdempotency(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		body := obj{"name": "Maria", "document": cpfOK}
		c1, b1 := ce.Do(ce.Owner, "PUT", "/v1/debtors/maria", body, "X-Idempotency-Key", "d-1")
		c2, b2 := ce.Do(ce.Owner, "PUT", "/v1/debtors/maria", body, "X-Idempotency-Key", "d-1")
		if c1 != 201 || c2 != 201 || b1 != b2 {
			t.Fatalf("upsert replay: %d %d\n%s\n%s", c1, c2, b1, b2)
		}
		charge := obj{"debtor_id": "maria", "amount": 99.9, "due_date": "2026-04-01"}
		c1, b1 = ce.Do(ce.Owner, "POST", "/v1/charges", charge, "X-Idempotency-Key", "c-1")
		c2, b2 = ce.Do(ce.Owner, "POST", "/v1/charges", charge, "X-Idempotency-Key", "c-1")
		if c1 != 201 || c2 != 201 || b1 != b2 {
			t.Fatalf("create replay: %d %d\n%s\n%s", c1, c2, b1, b2)
		}
		if p := ce.list("/v1/charges"); p.total != 1 {
			t.Fatalf("two charges from one key: %+v", p)
		}
		code, out := ce.call(ce.Owner, "POST", "/v1/charges", obj{"debtor_id": "maria", "amount": 1, "due_date": "2026-04-01"}, "X-Idempotency-Key", "c-1")
		if code != 409 || out["error"].(obj)["code"] != "CONFLICT" {
			t.Fatalf("key reused with another body: %d %v", code, out)
		}
		var created struct{ Data struct{ ID string } }
		_ = json.Unmarshal([]byte(b1), &created)
		pay := obj{"amount": 10}
		path := "/v1/charges/" + created.Data.ID + "/payments"
		c1, b1 = ce.Do(ce.Owner, "POST", path, pay, "X-Idempotency-Key", "p-1")
		c2, b2 = ce.Do(ce.Owner, "POST", path, pay, "X-Idempotency-Key", "p-1")
		if c1 != 201 || b1 != b2 {
			t.Fatalf("payment replay: %d %d\n%s\n%s", c1, c2, b1, b2)
		}
		if got := ce.ok(200, "GET", "/v1/charges/"+created.Data.ID, nil); num(got, "open_amount") != 89.9 || len(got["payments"].([]any)) != 1 {
			t.Fatalf("one payment recorded twice: %v", got)
		}
		// Keys are per organization: the other one's c-1 is its own.
		ce.call(ce.Other, "PUT", "/v1/debtors/x", obj{"name": "X", "document": cpfOK})
		code, out = ce.call(ce.Other, "POST", "/v1/charges", obj{"debtor_id": "x", "amount": 5, "due_date": "2026-04-01"}, "X-Idempotency-Key", "c-1")
		if code != 201 || out["data"].(obj)["id"] == created.Data.ID {
			t.Fatalf("their key: %d %v", code, out)
		}
	})
}

// TestCoreTools: the operations as MCP tools through the real endpoint:
// dunning_me, a create with idempotency_key, a strict list, a
// destructive tool refused to a client that cannot confirm, and the
// annotations of the catalog.
func TestCoreTools(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		text, isErr := ce.Call(ce.Owner, "dunning_me", map[string]any{})
		var me struct {
			Data struct {
				Organization struct{ ID string }
				Settings     struct{ Timezone string }
			}
		}
		if isErr || json.Unmarshal([]byte(text), &me) != nil || me.Data.Organization.ID != ce.Mine.ID || me.Data.Settings.Timezone != "America/Sao_Paulo" {
			t.Fatalf("dunning_me: %v %s", isErr, text)
		}
		if !strings.Contains(text, "\n  \"data\"") {
			t.Fatalf("tool text is not indented two spaces: %s", text)
		}
		text, isErr = ce.Call(ce.Member, "dunning_debtors_upsert", map[string]any{"external_id": "maria", "name": "Maria", "document": "52998224725", "phones": []string{"11987654321"}})
		if isErr || !strings.Contains(text, `"+5511987654321"`) || !strings.Contains(text, `"529.982.247-25"`) {
			t.Fatalf("upsert tool: %s", text)
		}
		args := map[string]any{"debtor_id": "maria", "amount": 10.005, "due_date": "2026-04-01", "idempotency_key": "mcp-1"}
		first, isErr := ce.Call(ce.Member, "dunning_charges_create", args)
		again, _ := ce.Call(ce.Member, "dunning_charges_create", args)
		if isErr || !strings.Contains(first, `"amount": 10.01`) || first != again {
			t.Fatalf("create tool: %s\n%s", first, again)
		}
		text, isErr = ce.Call(ce.Owner, "dunning_charges_list", map[string]any{"status": []string{"pending"}, "per_page": 5})
		if isErr || !strings.Contains(text, `"total": 1`) {
			t.Fatalf("list tool: %s", text)
		}
		text, isErr = ce.Call(ce.Owner, "dunning_charges_list", map[string]any{"statuses": "pending"})
		if !isErr || !strings.Contains(text, "statuses") {
			t.Fatalf("strict list tool: %v %s", isErr, text)
		}
		var c struct{ Data struct{ ID string } }
		_ = json.Unmarshal([]byte(first), &c)
		text, isErr = ce.Call(ce.Owner, "dunning_charges_cancel", map[string]any{"id": c.Data.ID})
		if !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("cancel without confirmation: %v %s", isErr, text)
		}
		if got := ce.ok(200, "GET", "/v1/charges/"+c.Data.ID, nil); got["status"] != "pending" {
			t.Fatalf("canceled without confirmation: %v", got)
		}
		text, isErr = ce.Call(ce.Member, "dunning_charges_payments_create", map[string]any{"id": c.Data.ID, "amount": 10.01})
		if isErr || !strings.Contains(text, `"status": "paid"`) {
			t.Fatalf("payment tool: %s", text)
		}
		// Another organization's id is the API's NOT_FOUND.
		text, isErr = ce.Call(ce.Other, "dunning_charges_get", map[string]any{"id": c.Data.ID})
		if !isErr || !strings.Contains(text, "NOT_FOUND") {
			t.Fatalf("their get: %v %s", isErr, text)
		}

		var list struct {
			Result struct {
				Tools []struct {
					Name        string
					Annotations struct{ ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint bool }
				}
			}
		}
		if err := json.Unmarshal([]byte(ce.RPC(ce.Owner, "tools/list", nil)), &list); err != nil {
			t.Fatal(err)
		}
		want := map[string][3]bool{ // read-only, destructive, idempotent
			"dunning_me": {true, false, true}, "dunning_settings_get": {true, false, true}, "dunning_settings_update": {false, false, false},
			"dunning_debtors_list": {true, false, true}, "dunning_debtors_get": {true, false, true}, "dunning_debtors_upsert": {false, false, false},
			"dunning_debtors_update": {false, false, false}, "dunning_debtors_archive": {false, true, true}, "dunning_debtors_opt_outs_set": {false, false, false},
			"dunning_charges_list": {true, false, true}, "dunning_charges_get": {true, false, true}, "dunning_charges_create": {false, false, false},
			"dunning_charges_update": {false, false, false}, "dunning_charges_cancel": {false, true, true}, "dunning_charges_archive": {false, true, true},
			"dunning_charges_payments_create": {false, false, false},
		}
		seen := 0
		for _, tool := range list.Result.Tools {
			w, ok := want[tool.Name]
			if !ok {
				continue
			}
			seen++
			a := tool.Annotations
			if [3]bool{a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint} != w || a.OpenWorldHint {
				t.Errorf("%s: %+v, want read-only/destructive/idempotent %v and closed world", tool.Name, a, w)
			}
		}
		if seen != len(want) {
			t.Fatalf("%d of %d core tools listed", seen, len(want))
		}
	})
}
