package dunning

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/bureau"
	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestCreditReportRules: each rule of a report is refused on its own with
// UNPROCESSABLE naming it, and a report that passes them all is requested,
// sent to the bureau over HTTP and confirmed, with its events.
func TestCreditReportRules(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		id := ee.overdueCharge("fatura-1", 100)
		ee.charge(obj{"debtor_id": "maria", "external_id": "futura", "amount": 50, "due_date": "2026-04-20"})
		ee.charge(obj{"debtor_id": "maria", "external_id": "antiga", "amount": 50, "due_date": "2021-03-01"})

		msg := ee.refused("POST", "/v1/charges/futura/credit-report", obj{}, "only_overdue")
		if !strings.Contains(msg, "this one is pending") {
			t.Fatalf("message %q", msg)
		}
		ee.refused("POST", "/v1/charges/antiga/credit-report", obj{}, "five_years")
		msg = ee.refused("POST", "/v1/charges/fatura-1/credit-report", obj{}, "prior_notice")
		if !strings.Contains(msg, "at least 10 days") || !strings.Contains(msg, "none was sent") {
			t.Fatalf("message %q", msg)
		}
		ee.priorNotice("fatura-1")
		ee.clock.Set(coreStart.AddDate(0, 0, 9))
		msg = ee.refused("POST", "/v1/charges/fatura-1/credit-report", obj{}, "prior_notice")
		if !strings.Contains(msg, "the last was sent on 10/03/2026") {
			t.Fatalf("message %q", msg)
		}
		ee.clock.Set(coreStart.AddDate(0, 0, 10))
		// A viewer reads but never reports; another organization sees no
		// such charge.
		ee.fails(ee.Viewer, 403, "FORBIDDEN", "POST", "/v1/charges/fatura-1/credit-report", obj{})
		ee.fails(ee.Other, 404, "NOT_FOUND", "POST", "/v1/charges/"+id+"/credit-report", obj{})

		r := ee.ok(202, "POST", "/v1/charges/fatura-1/credit-report", obj{"bureau": "boa_vista"})
		if r["status"] != "requested" || r["bureau"] != "boa_vista" || r["amount"] != 100.0 {
			t.Fatalf("report %v", r)
		}
		rid := r["id"].(string)
		ee.waitStatus(rid, "confirmed")
		recs := ee.fake.Records()
		if len(recs) != 1 || recs[0].Bureau != "boa_vista" || recs[0].Reference != rid || recs[0].Request.Debtor.Document != "52998224725" ||
			recs[0].Request.AmountCents != 10000 || recs[0].Request.Debtor.Name != "Maria da Silva" {
			t.Fatalf("bureau records %+v", recs)
		}
		msg = ee.refused("POST", "/v1/charges/fatura-1/credit-report", obj{}, "one_active_report")
		if !strings.Contains(msg, rid) {
			t.Fatalf("message %q", msg)
		}
		got := ee.ok(200, "GET", "/v1/credit-reports/"+rid, nil)
		if got["status"] != "confirmed" || got["protocol"] == nil {
			t.Fatalf("report %v", got)
		}
		ee.fails(ee.Other, 404, "NOT_FOUND", "GET", "/v1/credit-reports/"+rid, nil)
		ee.fails(ee.Other, 404, "NOT_FOUND", "DELETE", "/v1/charges/"+id+"/credit-report", nil)
		ee.fails(ee.Other, 404, "NOT_FOUND", "GET", "/v1/credit-reports?charge_id="+id, nil)
		code, list := ee.call(ee.Owner, "GET", "/v1/credit-reports?charge_id=fatura-1", nil)
		if code != 200 || list["meta"].(obj)["total"] != 1.0 {
			t.Fatalf("list %d %v", code, list)
		}
		code, list = ee.call(ee.Other, "GET", "/v1/credit-reports", nil)
		if code != 200 || list["meta"].(obj)["total"] != 0.0 {
			t.Fatalf("their list %d %v", code, list)
		}
		if ev := ee.events(rid); !slices.Equal(ev, []string{escalation.EventCreditReportRequested, escalation.EventCreditReportConfirmed}) {
			t.Fatalf("events %v", ev)
		}
		// The prior-notice days are a setting.
		ee.ok(200, "PATCH", "/v1/settings", obj{"prior_notice_days": 0})
		if st := ee.ok(200, "GET", "/v1/settings", nil); st["prior_notice_days"] != 0.0 {
			t.Fatalf("settings %v", st)
		}
	})
}

// TestCreditReportRemovedOnPayment: the payment that clears a reported
// charge asks for the removal in its own transaction (the payment's
// answer already finds it removal_requested, with a deadline five
// business days later), and the bureau removes it.
func TestCreditReportRemovedOnPayment(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-1", 100)
		ee.ok(200, "PATCH", "/v1/settings", obj{"prior_notice_days": 0})
		ee.priorNotice("fatura-1")
		rid := ee.ok(202, "POST", "/v1/charges/fatura-1/credit-report", obj{})["id"].(string)
		ee.waitStatus(rid, "confirmed")
		// Hold the removal at the bureau so the payment's own effect is seen.
		ee.fake.Set(func(f *bureau.Fake) { f.Unavailable = 1_000_000 })
		ee.ok(201, "POST", "/v1/charges/fatura-1/payments", obj{"amount": 100})
		got := ee.ok(200, "GET", "/v1/credit-reports/"+rid, nil)
		// Tuesday 10 March 2026 + 5 business days = Tuesday 17 March; the
		// deadline is its end, midnight in Brasília.
		if got["status"] != "removal_requested" || got["removal_reason"] != "paid" || got["removal_due_at"] != "2026-03-18T03:00:00Z" {
			t.Fatalf("report after the payment %v", got)
		}
		ee.fake.Set(func(f *bureau.Fake) { f.Unavailable = 0 })
		ee.waitStatus(rid, "removed")
		if recs := ee.fake.Records(); recs[0].Status != bureau.StatusRemoved || recs[0].Withdrawal.Reason != "paid" {
			t.Fatalf("bureau record %+v", recs[0])
		}
		if ev := ee.events(rid); !slices.Equal(ev, []string{escalation.EventCreditReportRequested, escalation.EventCreditReportConfirmed, escalation.EventCreditReportRemoved}) {
			t.Fatalf("events %v", ev)
		}
		// Removing it again answers it as it is.
		if r := ee.ok(202, "DELETE", "/v1/charges/fatura-1/credit-report", nil); r["status"] != "removed" {
			t.Fatalf("second removal %v", r)
		}
	})
}

// TestCreditReportRetriesAndLaterCallback: the bureau answers 503 twice,
// then pending, and confirms later by a signed callback; the retries
// carried the same Idempotency-Key, so it holds one record. A callback
// with a bad signature is refused and changes nothing; a slow bureau
// (past the client's timeout) is retried until it answers in time.
func TestCreditReportRetriesAndLaterCallback(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 300*time.Millisecond)
		ee.overdueCharge("fatura-1", 100)
		ee.ok(200, "PATCH", "/v1/settings", obj{"prior_notice_days": 0})
		ee.priorNotice("fatura-1")
		ee.fake.Set(func(f *bureau.Fake) { f.Unavailable, f.Later, f.CallbackDelay = 2, true, 300*time.Millisecond })
		rid := ee.ok(202, "POST", "/v1/charges/fatura-1/credit-report", obj{})["id"].(string)
		ee.eventually("the pending answer", func() bool {
			var p *string
			_ = ee.DB.Get(context.Background(), &p, `SELECT protocol FROM dunning_commands WHERE id = ?`, rid)
			return p != nil
		})
		// A forged callback is 403 and confirms nothing.
		body, _ := json.Marshal(bureau.Callback{Reference: rid, Protocol: "x", Status: bureau.StatusFailed})
		req, _ := http.NewRequest("POST", ee.URL+"/v1/callbacks/bureaus/"+rid, bytes.NewReader(body))
		req.Header.Set(bureau.SignatureHeader, bureau.Sign([]byte("another secret"), body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Fatalf("forged callback: %d", resp.StatusCode)
		}
		ee.waitStatus(rid, "confirmed")
		if n := ee.fake.Requests(); n < 3 {
			t.Fatalf("the bureau got %d requests, want the two refused and the one answered", n)
		}
		if recs := ee.fake.Records(); len(recs) != 1 {
			t.Fatalf("records %+v", recs)
		}

		// A bureau slower than the client's timeout: retried, then it
		// answers in time.
		ee.charge(obj{"debtor_id": "maria", "external_id": "fatura-2", "amount": 70, "due_date": "2026-02-20", "description": "Parcela"})
		ee.priorNotice("fatura-2")
		ee.fake.Set(func(f *bureau.Fake) { f.Later, f.Latency = false, time.Second })
		before := ee.fake.Requests()
		rid2 := ee.ok(202, "POST", "/v1/charges/fatura-2/credit-report", obj{"bureau": "quod"})["id"].(string)
		ee.eventually("two timed-out attempts", func() bool { return ee.fake.Requests() >= before+2 })
		if st := ee.commandStatus(rid2); st != "requested" {
			t.Fatalf("after a timeout: %s", st)
		}
		ee.fake.Set(func(f *bureau.Fake) { f.Latency = 0 })
		ee.waitStatus(rid2, "confirmed")
	})
}

// TestCreditReportRemovalWatch: a removal the bureau has not confirmed by
// its fifth business day raises dunning.credit_report.removal_overdue,
// once, on the test clock.
func TestCreditReportRemovalWatch(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-1", 100)
		ee.ok(200, "PATCH", "/v1/settings", obj{"prior_notice_days": 0})
		ee.priorNotice("fatura-1")
		rid := ee.ok(202, "POST", "/v1/charges/fatura-1/credit-report", obj{})["id"].(string)
		ee.waitStatus(rid, "confirmed")
		// The bureau takes the removal and never confirms it.
		ee.fake.Set(func(f *bureau.Fake) { f.Later, f.CallbackDelay = true, time.Hour })
		ee.ok(200, "POST", "/v1/charges/fatura-1/cancel", obj{})
		ee.eventually("the removal sent", func() bool {
			recs := ee.fake.Records()
			return len(recs) == 1 && recs[0].Withdrawal != nil
		})
		svc := ee.svc
		ctx := context.Background()
		// Monday 16 March, the fourth business day: not late.
		ee.clock.Set(coreStart.AddDate(0, 0, 6))
		if n, err := svc.WatchRemovals(ctx); err != nil || n != 0 {
			t.Fatalf("on the 4th business day: %d %v", n, err)
		}
		// Wednesday 18 March: past the deadline (the end of 17 March).
		ee.clock.Set(coreStart.AddDate(0, 0, 8))
		if n, err := svc.WatchRemovals(ctx); err != nil || n != 1 {
			t.Fatalf("after the deadline: %d %v", n, err)
		}
		if n, err := svc.WatchRemovals(ctx); err != nil || n != 0 {
			t.Fatalf("a second watch: %d %v", n, err)
		}
		if ev := ee.events(rid); ev[len(ev)-1] != escalation.EventCreditReportRemovalOverdue {
			t.Fatalf("events %v", ev)
		}
		if got := ee.ok(200, "GET", "/v1/credit-reports/"+rid, nil); got["removal_overdue_at"] == nil || got["removal_reason"] != "canceled" {
			t.Fatalf("report %v", got)
		}
	})
}
