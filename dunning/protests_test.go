package dunning

import (
	"slices"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/bureau"
	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestProtest: only an overdue charge is protested; the notary confirms
// it; a second is refused; the payment asks for its cancellation in the
// same transaction, the notary cancels it; another organization's
// protest is not found; a cancellation by hand of a protest already
// canceled answers it as it is.
func TestProtest(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-1", 250)
		ee.charge(obj{"debtor_id": "maria", "external_id": "futura", "amount": 50, "due_date": "2026-04-20"})
		ee.refused("POST", "/v1/charges/futura/protest", obj{}, "only_overdue")
		ee.fails(ee.Member, 403, "FORBIDDEN", "POST", "/v1/charges/fatura-1/protest", obj{})
		p := ee.ok(202, "POST", "/v1/charges/fatura-1/protest", obj{})
		pid := p["id"].(string)
		if p["status"] != "requested" || p["amount"] != 250.0 {
			t.Fatalf("protest %v", p)
		}
		ee.waitStatus(pid, "confirmed")
		ee.refused("POST", "/v1/charges/fatura-1/protest", obj{}, "one_active_protest")
		if recs := ee.fake.Records(); len(recs) != 1 || recs[0].Bureau != bureau.Notary {
			t.Fatalf("notary records %+v", recs)
		}
		ee.fails(ee.Other, 404, "NOT_FOUND", "GET", "/v1/protests/"+pid, nil)
		ee.fails(ee.Other, 404, "NOT_FOUND", "POST", "/v1/charges/"+p["charge_id"].(string)+"/protest", obj{})
		ee.fails(ee.Other, 404, "NOT_FOUND", "GET", "/v1/protests?charge_id=fatura-1", nil)
		ee.fails(ee.Other, 404, "NOT_FOUND", "POST", "/v1/charges/fatura-1/protest/cancel", obj{})

		ee.ok(201, "POST", "/v1/charges/fatura-1/payments", obj{"amount": 250})
		got := ee.ok(200, "GET", "/v1/protests/"+pid, nil)
		if got["status"] != "cancel_requested" && got["status"] != "canceled" {
			t.Fatalf("after the payment %v", got)
		}
		if got["cancel_reason"] != "paid" {
			t.Fatalf("cancel reason %v", got)
		}
		// Cancelled after payment: the settlement letter is the consent
		// (anuência), made in the payment's transaction.
		consent, _ := got["consent_document_id"].(string)
		if consent == "" {
			t.Fatalf("no consent document %v", got)
		}
		if doc := ee.waitFile("/v1/documents/" + consent); doc["status"] != files.FileReady || doc["kind"] != files.DocumentSettlementLetter {
			t.Fatalf("consent %v", doc)
		}
		_, _, _, letter := ee.download("/v1/documents/" + consent + "/download")
		if text := pdfText(t, letter); !strings.Contains(text, "R$ 250,00") {
			t.Errorf("the consent letter lacks the amount paid:\n%s", text)
		}
		ee.waitStatus(pid, "canceled")
		if recs := ee.fake.Records(); recs[0].Status != bureau.StatusCanceled || recs[0].Withdrawal.Reason != "paid" {
			t.Fatalf("notary record %+v", recs[0])
		}
		if ev := ee.events(pid); !slices.Equal(ev, []string{escalation.EventProtestRequested, escalation.EventProtestConfirmed, escalation.EventProtestCanceled}) {
			t.Fatalf("events %v", ev)
		}
		if r := ee.ok(202, "POST", "/v1/charges/fatura-1/protest/cancel", obj{}); r["status"] != "canceled" {
			t.Fatalf("cancel again %v", r)
		}
		code, list := ee.call(ee.Owner, "GET", "/v1/protests?status=canceled", nil)
		if code != 200 || list["meta"].(obj)["total"] != 1.0 {
			t.Fatalf("list %d %v", code, list)
		}
		ee.fails(ee.Owner, 422, "VALIDATION_ERROR", "GET", "/v1/protests?status=removed", nil)
	})
}

// TestProtestRefusedByNotary: a definitive refusal is failed, with the
// notary's reason and dunning.protest.failed; the charge may be
// protested again.
func TestProtestRefusedByNotary(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-1", 80)
		ee.fake.Set(func(f *bureau.Fake) { f.Refuse["52998224725"] = "endereço do devedor incompleto" })
		pid := ee.ok(202, "POST", "/v1/charges/fatura-1/protest", obj{})["id"].(string)
		ee.waitStatus(pid, "failed")
		got := ee.ok(200, "GET", "/v1/protests/"+pid, nil)
		if got["error"] != "endereço do devedor incompleto" || got["failed_at"] == nil {
			t.Fatalf("protest %v", got)
		}
		if ev := ee.events(pid); !slices.Equal(ev, []string{escalation.EventProtestRequested, escalation.EventProtestFailed}) {
			t.Fatalf("events %v", ev)
		}
		ee.fake.Set(func(f *bureau.Fake) { delete(f.Refuse, "52998224725") })
		ee.ok(202, "POST", "/v1/charges/fatura-1/protest", obj{})
	})
}
