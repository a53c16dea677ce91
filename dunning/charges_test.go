package dunning

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestChargeBreakdown checks chargeBreakdown against figures worked by
// hand:
//   - R$ 1.000,00, 2 % fine, 1 % a month, due Tue 10 Mar 2026, on Fri 24
//     Apr (45 days): fine 1000 × 2 % = 20,00; interest 1000 × 1 % × 45/30
//     = 15,00; 1.035,00.
//   - R$ 1.234,56, same terms, 17 days late: fine 24,6912 → 24,69;
//     interest 1234,56 × 1 % × 17/30 = 6,99584 → 7,00; 1.266,25.
//   - R$ 0,10 at 2 % and 1 %, one day: fine 0,002 → 0,00, interest
//     0,0000333 → 0,00: nothing to add.
//   - R$ 99,99, 2 %, 1 %, 1 day: fine 1,9998 → 2,00, interest 0,03333 →
//     0,03: 102,02.
//   - Due Sat 14 Feb 2026: Carnival is Mon 16 and Tue 17 Feb, so it is on
//     time until Wed 18 Feb; on Thu 19 Feb it is 5 days late.
//   - With 10 grace days, on time until 20 Mar; on 21 Mar 11 days late.
//   - A paid or canceled charge grows no more.
func TestChargeBreakdown(t *testing.T) {
	t.Parallel()
	st := ledger.DefaultSettings("org")
	d := func(y int, m time.Month, day int) bankcalendar.Date { return bankcalendar.NewDate(y, m, day) }
	c := func(cents money.Cents, due bankcalendar.Date) ledger.Charge {
		return ledger.Charge{OpenAmount: cents, DueDate: due, Fine: 2 * latefee.OnePercent, Interest: latefee.OnePercent, Status: lifecycle.ChargeOverdue}
	}
	grace := ledger.DefaultSettings("org")
	grace.GraceDays = 10
	for _, tc := range []struct {
		name                          string
		c                             ledger.Charge
		st                            ledger.Settings
		on                            bankcalendar.Date
		fine, interest, updated, days int
	}{
		{"45 days", c(100000, d(2026, 3, 10)), st, d(2026, 4, 24), 2000, 1500, 103500, 45},
		{"17 days", c(123456, d(2026, 3, 10)), st, d(2026, 3, 27), 2469, 700, 126625, 17},
		{"ten cents", c(10, d(2026, 3, 10)), st, d(2026, 3, 11), 0, 0, 10, 1},
		{"99,99", c(9999, d(2026, 3, 10)), st, d(2026, 3, 11), 200, 3, 10202, 1},
		{"on the due date", c(100000, d(2026, 3, 10)), st, d(2026, 3, 10), 0, 0, 100000, 0},
		{"carnival, on time", c(100000, d(2026, 2, 14)), st, d(2026, 2, 18), 0, 0, 100000, 0},
		{"carnival, late", c(100000, d(2026, 2, 14)), st, d(2026, 2, 19), 2000, 167, 102167, 5},
		{"grace, on time", c(100000, d(2026, 3, 10)), grace, d(2026, 3, 20), 0, 0, 100000, 0},
		{"grace, late", c(100000, d(2026, 3, 10)), grace, d(2026, 3, 21), 2000, 367, 102367, 11},
	} {
		b, err := ledger.ChargeBreakdown(tc.c, tc.st, tc.on)
		if err != nil || int(b.Fine) != tc.fine || int(b.Interest) != tc.interest || int(b.Updated) != tc.updated || b.DaysLate != tc.days {
			t.Errorf("%s: %+v %v, want fine %d interest %d updated %d days %d", tc.name, b, err, tc.fine, tc.interest, tc.updated, tc.days)
		}
	}
	paid := c(0, d(2026, 1, 1))
	paid.Status = lifecycle.ChargePaid
	canceled := c(5000, d(2026, 1, 1))
	canceled.Status = lifecycle.ChargeCanceled
	for _, x := range []ledger.Charge{paid, canceled} {
		if b, _ := ledger.ChargeBreakdown(x, st, d(2026, 3, 1)); b.Updated != x.OpenAmount || b.Fine != 0 || b.Interest != 0 {
			t.Errorf("%s grows: %+v", x.Status, b)
		}
	}
}

// TestCharges drives every charge route on both engines.
func TestCharges(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria da Silva", cpfOK)
		ce.debtor("acme", "ACME Ltda", cnpjOK)

		// Create: money rounded half-up from the digits written.
		c := ce.charge(obj{"debtor_id": "maria", "external_id": "inv-1", "amount": 1000.005, "due_date": "2026-03-10", "description": "Mensalidade março",
			"fine_percent": 2, "interest_percent": 1, "tags": []string{"school", " school ", "2026"}, "custom_data": obj{"contract": "C-9"},
			"payment_link": "https://pay.example.com/inv-1", "origin": "invoice"})
		id := c["id"].(string)
		if num(c, "amount") != 1000.01 || num(c, "open_amount") != 1000.01 || num(c, "updated_amount") != 1000.01 || c["status"] != "pending" ||
			c["amounts_on"] != "2026-03-10" || c["external_id"] != "inv-1" || len(c["tags"].([]any)) != 2 || c["custom_data"].(obj)["contract"] != "C-9" ||
			num(c, "fine_percent") != 2 || num(c, "interest_percent") != 1 || c["origin"] != "invoice" || c["archived"] != false {
			t.Fatalf("created: %v", c)
		}
		if ev := ce.events(id); strings.Join(ev, ",") != ledger.EventChargeCreated {
			t.Fatalf("events: %v", ev)
		}
		for amount, want := range map[float64]float64{10.555: 10.56, 10.554: 10.55, 0.005: 0.01, 2.675: 2.68, 1e6: 1e6} {
			if got := ce.charge(obj{"debtor_id": "acme", "amount": amount, "due_date": "2026-12-01"}); num(got, "amount") != want {
				t.Errorf("amount %v → %v, want %v", amount, got["amount"], want)
			}
		}
		// A second create with the external_id names the charge that has it.
		code, out := ce.call(ce.Owner, "POST", "/v1/charges", obj{"debtor_id": "acme", "external_id": "inv-1", "amount": 5, "due_date": "2026-04-01"})
		if e := out["error"].(obj); code != 409 || e["code"] != "CONFLICT" || !strings.Contains(e["message"].(string), id) {
			t.Fatalf("duplicate external_id: %d %v", code, out)
		}
		// Validation names the field.
		for _, tc := range []struct {
			body  obj
			field string
		}{
			{obj{"debtor_id": "maria", "amount": -1, "due_date": "2026-04-01"}, "amount"},
			{obj{"debtor_id": "maria", "amount": 0.004, "due_date": "2026-04-01"}, "amount"},
			{obj{"debtor_id": "maria", "amount": 1e14, "due_date": "2026-04-01"}, "amount"},
			{obj{"debtor_id": "maria", "amount": "10.00", "due_date": "2026-04-01"}, "amount"},
			{obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-02-30"}, "due_date"},
			{obj{"debtor_id": "maria", "amount": 10}, "due_date"},
			{obj{"debtor_id": "nobody", "amount": 10, "due_date": "2026-04-01"}, "debtor_id"},
			{obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01", "fine_percent": 2.5}, "fine_percent"},
			{obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01", "interest_percent": 1.5}, "interest_percent"},
			{obj{"debtor_id": "acme", "amount": 10, "due_date": "2026-04-01", "fine_percent": 11}, "fine_percent"},
			{obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01", "status": "paid"}, "status"},
			{obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01", "barcode": "23790.50400 41990.000001 00000.123456 1 00000000000000"}, "barcode"},
			{obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01", "payment_link": "javascript:alert(1)"}, "payment_link"},
		} {
			fields, _ := ce.fails(ce.Member, 422, "VALIDATION_ERROR", "POST", "/v1/charges", tc.body)
			wantFields(t, fields, tc.field)
		}
		// A company may carry a higher fine, up to the organization's cap.
		if got := ce.charge(obj{"debtor_id": "acme", "external_id": "acme-1", "amount": 1234.56, "due_date": "2026-03-10", "fine_percent": 10, "interest_percent": 1}); num(got, "fine_percent") != 10 {
			t.Fatalf("company fine: %v", got)
		}
		ce.fails(ce.Viewer, 403, "FORBIDDEN", "POST", "/v1/charges", obj{"debtor_id": "maria", "amount": 1, "due_date": "2026-04-01"})

		// Get: updated amount for today and for any date.
		got := ce.ok(200, "GET", "/v1/charges/inv-1?on=2026-04-24", nil)
		if got["id"] != id || num(got, "fine_amount") != 20 || num(got, "interest_amount") != 15 || num(got, "updated_amount") != 1035.01 ||
			num(got, "days_late") != 45 || got["amounts_on"] != "2026-04-24" || got["debtor"].(obj)["document"] != cpfOK ||
			len(got["payments"].([]any)) != 0 || len(got["enrollments"].([]any)) != 0 || len(got["notifications"].([]any)) != 0 {
			t.Fatalf("get on: %v", got)
		}
		ce.clock.Set(time.Date(2026, 3, 27, 9, 0, 0, 0, brasilia))
		// 17 days late: fine 1234,56 × 10 % = 123,456 → 123,46; interest
		// 1234,56 × 1 % × 17/30 = 6,99584 → 7,00; 1.365,02.
		if got := ce.ok(200, "GET", "/v1/charges/acme-1", nil); num(got, "updated_amount") != 1365.02 || num(got, "fine_amount") != 123.46 ||
			num(got, "interest_amount") != 7 || num(got, "days_late") != 17 || got["amounts_on"] != "2026-03-27" {
			t.Fatalf("get today: %v", got)
		}
		ce.clock.Set(coreStart)
		fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "GET", "/v1/charges/"+id+"?on=24/04/2026", nil)
		wantFields(t, fields, "on")
		fields, _ = ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "GET", "/v1/charges/"+id+"?expand=all", nil)
		wantFields(t, fields, "expand")

		// Created already late: overdue at once, with both events.
		late := ce.charge(obj{"debtor_id": "maria", "external_id": "old", "amount": 300, "due_date": "2026-02-27", "fine_percent": 2})
		if late["status"] != "overdue" || late["overdue_at"] == nil || num(late, "fine_amount") != 6 || num(late, "days_late") != 11 {
			t.Fatalf("late: %v", late)
		}
		if ev := ce.events(late["id"].(string)); strings.Join(ev, ",") != ledger.EventChargeCreated+","+ledger.EventChargeOverdue {
			t.Fatalf("late events: %v", ev)
		}

		// Lists: filters, sorts, pages with exact totals, strict.
		if p := ce.list("/v1/charges"); p.total != 8 || p.data[0]["external_id"] != "old" {
			t.Fatalf("list: %+v", p)
		}
		if p := ce.list("/v1/charges?status=overdue"); p.total != 1 || p.data[0]["external_id"] != "old" {
			t.Fatalf("overdue: %+v", p)
		}
		if p := ce.list("/v1/charges?status=pending,overdue&debtor_id=maria"); p.total != 2 {
			t.Fatalf("maria's open: %+v", p)
		}
		if p := ce.list("/v1/charges?due_from=2026-03-01&due_to=2026-03-31&sort_by=amount&sort_order=desc"); p.total != 2 || p.data[0]["external_id"] != "acme-1" {
			t.Fatalf("march: %+v", p)
		}
		if p := ce.list("/v1/charges?q=mensalidade"); p.total != 1 || p.data[0]["id"] != id {
			t.Fatalf("q description: %+v", p)
		}
		if p := ce.list("/v1/charges?q=acme"); p.total != 6 {
			t.Fatalf("q debtor name: %+v", p)
		}
		if p := ce.list("/v1/charges?sort_by=amount&per_page=3&page=2"); p.total != 8 || p.totalPages != 3 || len(p.data) != 3 ||
			num(p.data[0], "amount") != 10.56 || num(p.data[1], "amount") != 300 || num(p.data[2], "amount") != 1000.01 {
			t.Fatalf("page 2 by amount: %+v", p)
		}
		if p := ce.list("/v1/charges?page=9"); p.total != 8 || len(p.data) != 0 {
			t.Fatalf("past the last page: %+v", p)
		}
		if p := ce.list("/v1/charges?plan_id=none"); p.total != 0 {
			t.Fatalf("plan: %+v", p)
		}
		for q, field := range map[string]string{"status=late": "status", "due_from=2026-3-1": "due_from", "sort_by=name": "sort_by",
			"sort_order=up": "sort_order", "organization_id=x": "organization_id", "per_page=0": "per_page"} {
			fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "GET", "/v1/charges?"+q, nil)
			wantFields(t, fields, field)
		}

		// Update: never the status; a due date past grace makes it overdue;
		// an overdue charge cannot be pending again.
		fields, _ = ce.fails(ce.Member, 422, "VALIDATION_ERROR", "PATCH", "/v1/charges/"+id, obj{"status": "paid"})
		wantFields(t, fields, "status")
		upd := ce.ok(200, "PATCH", "/v1/charges/"+id, obj{"amount": 1200, "description": "Mensalidade", "tags": []string{}, "custom_data": obj{}})
		if num(upd, "amount") != 1200 || num(upd, "open_amount") != 1200 || upd["description"] != "Mensalidade" || len(upd["tags"].([]any)) != 0 || upd["status"] != "pending" {
			t.Fatalf("update: %v", upd)
		}
		fields, _ = ce.fails(ce.Member, 422, "VALIDATION_ERROR", "PATCH", "/v1/charges/"+id, obj{"fine_percent": 3})
		wantFields(t, fields, "fine_percent")
		upd = ce.ok(200, "PATCH", "/v1/charges/"+id, obj{"due_date": "2026-03-05"})
		if upd["status"] != "overdue" || num(upd, "days_late") != 5 || num(upd, "fine_amount") != 24 {
			t.Fatalf("moved into the past: %v", upd)
		}
		_, msg := ce.fails(ce.Member, 422, "UNPROCESSABLE", "PATCH", "/v1/charges/"+id, obj{"due_date": "2026-04-05"})
		if !strings.Contains(msg, "an overdue charge cannot become pending") {
			t.Fatalf("overdue to pending: %s", msg)
		}

		// Cancel: destructive, admins; repeated, nothing changes; final.
		ce.fails(ce.Member, 403, "FORBIDDEN", "POST", "/v1/charges/"+id+"/cancel", nil)
		for range 2 {
			code, out := ce.call(ce.Admin, "POST", "/v1/charges/"+id+"/cancel", nil)
			if code != 200 || out["data"].(obj)["status"] != "canceled" || out["data"].(obj)["canceled_at"] == nil || num(out["data"].(obj), "updated_amount") != 1200 {
				t.Fatalf("cancel: %d %v", code, out)
			}
		}
		if ev := ce.events(id); strings.Join(ev, ",") != ledger.EventChargeCreated+","+ledger.EventChargeOverdue+","+ledger.EventChargeCanceled {
			t.Fatalf("cancel events: %v", ev)
		}
		_, msg = ce.fails(ce.Member, 422, "UNPROCESSABLE", "PATCH", "/v1/charges/"+id, obj{"amount": 1})
		if !strings.Contains(msg, "canceled cannot be changed") {
			t.Fatalf("update canceled: %s", msg)
		}

		// Archive: leaves the default listing, stops collection, repeatable.
		for range 2 {
			code, out := ce.call(ce.Admin, "POST", "/v1/charges/old/archive", nil)
			if code != 200 || out["data"].(obj)["archived"] != true || out["data"].(obj)["status"] != "overdue" {
				t.Fatalf("archive: %d %v", code, out)
			}
		}
		if p := ce.list("/v1/charges"); p.total != 7 {
			t.Fatalf("archived listed: %+v", p)
		}
		if p := ce.list("/v1/charges?archived=true"); p.total != 1 || p.data[0]["external_id"] != "old" {
			t.Fatalf("archived list: %+v", p)
		}
		if calls := ce.closedCalls(); strings.Join(calls, " ") != id+":canceled "+late["id"].(string)+":archived" {
			t.Fatalf("onChargeClosed: %v", calls)
		}

		// The other organization's ids answer NOT_FOUND everywhere.
		for _, ref := range []string{id, "inv-1"} {
			ce.fails(ce.Other, 404, "NOT_FOUND", "GET", "/v1/charges/"+ref, nil)
			ce.fails(ce.Other, 404, "NOT_FOUND", "PATCH", "/v1/charges/"+ref, obj{"description": "x"})
			ce.fails(ce.Other, 404, "NOT_FOUND", "POST", "/v1/charges/"+ref+"/cancel", nil)
			ce.fails(ce.Other, 404, "NOT_FOUND", "POST", "/v1/charges/"+ref+"/archive", nil)
			ce.fails(ce.Other, 404, "NOT_FOUND", "POST", "/v1/charges/"+ref+"/payments", obj{"amount": 1})
		}
		fields, _ = ce.fails(ce.Other, 422, "VALIDATION_ERROR", "POST", "/v1/charges", obj{"debtor_id": "maria", "amount": 1, "due_date": "2026-04-01"})
		wantFields(t, fields, "debtor_id")
		if code, out := ce.call(ce.Other, "GET", "/v1/charges", nil); code != 200 || num(out["meta"].(obj), "total") != 0 {
			t.Fatalf("their list: %v", out)
		}
		// Their inv-1 does not conflict with ours.
		ce.call(ce.Other, "PUT", "/v1/debtors/x", obj{"name": "X", "document": cpfOK})
		if code, out := ce.call(ce.Other, "POST", "/v1/charges", obj{"debtor_id": "x", "external_id": "inv-1", "amount": 1, "due_date": "2026-04-01"}); code != 201 {
			t.Fatalf("their inv-1: %d %v", code, out)
		}
	})
}

// TestChargeIllegalTransitions: every refused change of status is
// UNPROCESSABLE naming both states.
func TestChargeIllegalTransitions(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria", cpfOK)
		paid := ce.charge(obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01"})
		ce.ok(201, "POST", "/v1/charges/"+paid["id"].(string)+"/payments", obj{"amount": 10})
		_, msg := ce.fails(ce.Admin, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+paid["id"].(string)+"/cancel", nil)
		if msg != "a paid charge cannot become canceled" {
			t.Fatalf("cancel paid: %q", msg)
		}
		canceled := ce.charge(obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01"})
		ce.ok(200, "POST", "/v1/charges/"+canceled["id"].(string)+"/cancel", nil)
		_, msg = ce.fails(ce.Member, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+canceled["id"].(string)+"/payments", obj{"amount": 1})
		if msg != "a canceled charge cannot receive payments: only pending and overdue charges can" {
			t.Fatalf("pay canceled: %q", msg)
		}
		_, msg = ce.fails(ce.Member, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+paid["id"].(string)+"/payments", obj{"amount": 1})
		if !strings.HasPrefix(msg, "a paid charge cannot receive payments") {
			t.Fatalf("pay paid: %q", msg)
		}
		// Written off and in agreement (set by later parts) are refused too.
		for _, status := range []string{"written_off", "in_agreement"} {
			c := ce.charge(obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01"})
			if _, err := db.Exec(t.Context(), `UPDATE dunning_charges SET status = ? WHERE id = ?`, status, c["id"]); err != nil {
				t.Fatal(err)
			}
			_, msg := ce.fails(ce.Member, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+c["id"].(string)+"/payments", obj{"amount": 1})
			if msg != fmt.Sprintf("%s %s charge cannot receive payments: only pending and overdue charges can", ledger.ArticleFor(status), status) {
				t.Fatalf("pay %s: %q", status, msg)
			}
			if status == "written_off" {
				_, msg := ce.fails(ce.Admin, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+c["id"].(string)+"/cancel", nil)
				if msg != "a written_off charge cannot become canceled" {
					t.Fatalf("cancel %s: %q", status, msg)
				}
			} else if got := ce.ok(200, "POST", "/v1/charges/"+c["id"].(string)+"/cancel", nil); got["status"] != "canceled" {
				// in_agreement → canceled is legal (lifecycle.Charges).
				t.Fatalf("cancel %s: %v", status, got)
			}
		}
		// Writing off: only an overdue charge; final; no event; collection
		// stops.
		pending := ce.charge(obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01"})
		_, msg = ce.fails(ce.Admin, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+pending["id"].(string)+"/cancel", obj{"write_off": true})
		if msg != "a pending charge cannot become written_off" {
			t.Fatalf("write off pending: %q", msg)
		}
		overdue := ce.charge(obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-03-01"})
		oid := overdue["id"].(string)
		for range 2 {
			if got := ce.ok(200, "POST", "/v1/charges/"+oid+"/cancel", obj{"write_off": true}); got["status"] != "written_off" || got["canceled_at"] == nil {
				t.Fatalf("write off: %v", got)
			}
		}
		if ev := ce.events(oid); strings.Join(ev, ",") != ledger.EventChargeCreated+","+ledger.EventChargeOverdue {
			t.Fatalf("write-off events: %v", ev)
		}
		if calls := ce.closedCalls(); calls[len(calls)-1] != oid+":written_off" {
			t.Fatalf("onChargeClosed: %v", calls)
		}
		_, msg = ce.fails(ce.Admin, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+oid+"/cancel", nil)
		if msg != "a written_off charge cannot become canceled" {
			t.Fatalf("cancel written off: %q", msg)
		}
		_, msg = ce.fails(ce.Admin, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+canceled["id"].(string)+"/cancel", obj{"write_off": true})
		if msg != "a canceled charge cannot become written_off" {
			t.Fatalf("write off canceled: %q", msg)
		}
	})
}
