package dunning

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// installments reads an agreement's schedule: amounts and due dates.
func installmentsOf(a obj) (amounts []float64, dates []string, charges []string) {
	for _, i := range a["installments"].([]any) {
		m := i.(obj)
		amounts = append(amounts, m["amount"].(float64))
		dates = append(dates, m["due_date"].(string))
		if id, ok := m["charge_id"].(string); ok {
			charges = append(charges, id)
		}
	}
	return amounts, dates, charges
}

func (ee *dunEnv) chargeStatus(ref string) (string, float64) {
	c := ee.ok(200, "GET", "/v1/charges/"+ref, nil)
	return c["status"].(string), c["open_amount"].(float64)
}

// TestAgreementSettled: a proposal over two charges in exact cents (R$
// 100,00 in 3: 33,34 + 33,33 + 33,33, monthly on the 10th moved to a
// business day); the discount cap refused by its rule; accepting puts
// the charges in_agreement (their collection stops and the report of one
// is removed, in the same transaction) and makes the installments
// charges; paying them through the charges' payments settles it on the
// monitor's next run, and the charges become paid.
func TestAgreementSettled(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		a := ee.overdueCharge("fatura-a", 60)
		b := ee.charge(obj{"debtor_id": "maria", "external_id": "fatura-b", "amount": 40, "due_date": "2026-02-25", "description": "Taxa"})["id"].(string)
		ee.ok(200, "PATCH", "/v1/settings", obj{"prior_notice_days": 0})
		ee.priorNotice("fatura-a")
		rid := ee.ok(202, "POST", "/v1/charges/fatura-a/credit-report", obj{})["id"].(string)
		ee.waitStatus(rid, "confirmed")

		msg := ee.refused("POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"fatura-a", "fatura-b"}, "installments": 3,
			"discount_percent": 31}, "max_discount")
		if !strings.Contains(msg, "R$ 31,00") || !strings.Contains(msg, "R$ 30,00 of R$ 100,00") {
			t.Fatalf("message %q", msg)
		}
		ag := ee.ok(201, "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"fatura-a", "fatura-b"}, "installments": 3})
		amounts, dates, _ := installmentsOf(ag)
		if !slices.Equal(amounts, []float64{33.34, 33.33, 33.33}) || !slices.Equal(dates, []string{"2026-04-10", "2026-05-11", "2026-06-10"}) {
			t.Fatalf("schedule %v %v", amounts, dates)
		}
		if ag["status"] != "proposed" || ag["total_amount"] != 100.0 || ag["term_document_id"] == nil {
			t.Fatalf("agreement %v", ag)
		}
		id := ag["id"].(string)
		// Proposing made its term: the debtor, the charges and the
		// installment table, as proposed.
		termID := ag["term_document_id"].(string)
		if term := ee.waitFile("/v1/documents/" + termID); term["status"] != files.FileReady || term["kind"] != files.DocumentAgreementTerm {
			t.Fatalf("term %v", term)
		}
		code, ctype, _, pdf := ee.download("/v1/documents/" + termID + "/download")
		text := pdfText(t, pdf)
		for _, want := range []string{"Maria", "fatura-a", "fatura-b", "R$ 100,00", "R$ 33,34", "R$ 33,33", "10/04/2026", "11/05/2026", "10/06/2026"} {
			if !strings.Contains(text, want) {
				t.Errorf("the term lacks %q (%d %s):\n%s", want, code, ctype, text)
			}
		}
		if st, _ := ee.chargeStatus("fatura-a"); st != "overdue" {
			t.Fatalf("a proposal changed the charge: %s", st)
		}
		// The same charges cannot be in two open agreements.
		ee.fails(ee.Owner, 422, "UNPROCESSABLE", "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"fatura-b"}, "installments": 1})
		ee.fails(ee.Other, 404, "NOT_FOUND", "GET", "/v1/agreements/"+id, nil)
		ee.fails(ee.Other, 404, "NOT_FOUND", "POST", "/v1/agreements/"+id+"/accept", obj{})
		ee.fails(ee.Other, 404, "NOT_FOUND", "POST", "/v1/agreements/"+id+"/cancel", obj{})
		// Another organization's charges are not theirs to renegotiate.
		fields, _ := ee.fails(ee.Other, 422, "VALIDATION_ERROR", "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{a}, "installments": 1})
		wantFields(t, fields, "debtor_id")
		if _, list := ee.call(ee.Other, "GET", "/v1/agreements", nil); list["meta"].(obj)["total"] != 0.0 {
			t.Fatalf("their agreements %v", list)
		}
		ee.fails(ee.Member, 403, "FORBIDDEN", "POST", "/v1/agreements/"+id+"/accept", obj{})

		ag = ee.ok(200, "POST", "/v1/agreements/"+id+"/accept", obj{})
		_, _, inst := installmentsOf(ag)
		if ag["status"] != "accepted" || len(inst) != 3 {
			t.Fatalf("accepted %v", ag)
		}
		for _, ref := range []string{"fatura-a", "fatura-b"} {
			if st, _ := ee.chargeStatus(ref); st != "in_agreement" {
				t.Fatalf("%s is %s", ref, st)
			}
		}
		calls := ee.closedCalls()
		if !slices.Contains(calls, a+":in_agreement") || !slices.Contains(calls, b+":in_agreement") {
			t.Fatalf("charge-closed hooks %v", calls)
		}
		if got := ee.ok(200, "GET", "/v1/credit-reports/"+rid, nil); got["removal_reason"] != "in_agreement" {
			t.Fatalf("report %v", got)
		}
		ee.waitStatus(rid, "removed")
		// The agreements export lists it as accepted, another state none.
		exp := ee.ok(202, "POST", "/v1/exports", obj{"resource": "agreements", "filters": obj{"debtor_id": "maria"}, "separator": ";"})
		if done := ee.waitFile("/v1/exports/" + exp["id"].(string)); done["status"] != files.FileReady {
			t.Fatalf("export %v", done)
		}
		_, _, _, csvData := ee.download("/v1/exports/" + exp["id"].(string) + "/download")
		recs := readCSV(t, csvData, ';')
		if len(recs) != 2 || csvColumn(t, recs[0], recs[1], "id") != id || csvColumn(t, recs[0], recs[1], "status") != "accepted" ||
			csvColumn(t, recs[0], recs[1], "total_amount") != "100,00" || csvColumn(t, recs[0], recs[1], "installments_count") != "3" {
			t.Fatalf("agreements export %v", recs)
		}
		exp = ee.ok(202, "POST", "/v1/exports", obj{"resource": "agreements", "filters": obj{"status": "broken"}})
		ee.waitFile("/v1/exports/" + exp["id"].(string))
		if _, _, _, none := ee.download("/v1/exports/" + exp["id"].(string) + "/download"); len(readCSV(t, none, ',')) != 1 {
			t.Fatalf("broken agreements: %q", none)
		}
		// Accepting again changes nothing.
		if again := ee.ok(200, "POST", "/v1/agreements/"+id+"/accept", obj{}); again["status"] != "accepted" {
			t.Fatalf("again %v", again)
		}

		ctx := context.Background()
		ee.ok(201, "POST", "/v1/charges/"+inst[0]+"/payments", obj{"amount": 33.34})
		if n, err := ee.svc.MonitorAgreements(ctx); err != nil || n != 1 {
			t.Fatalf("monitor: %d %v", n, err)
		}
		if got := ee.ok(200, "GET", "/v1/agreements/"+id, nil); got["status"] != "active" {
			t.Fatalf("after the first installment %v", got)
		}
		ee.ok(201, "POST", "/v1/charges/"+inst[1]+"/payments", obj{"amount": 33.33})
		ee.ok(201, "POST", "/v1/charges/"+inst[2]+"/payments", obj{"amount": 33.33})
		if n, err := ee.svc.MonitorAgreements(ctx); err != nil || n != 1 {
			t.Fatalf("monitor: %d %v", n, err)
		}
		got := ee.ok(200, "GET", "/v1/agreements/"+id, nil)
		if got["status"] != "settled" || got["ended_at"] == nil {
			t.Fatalf("settled %v", got)
		}
		for _, ref := range []string{"fatura-a", "fatura-b"} {
			if st, open := ee.chargeStatus(ref); st != "paid" || open != 0 {
				t.Fatalf("%s is %s owing %v", ref, st, open)
			}
		}
		if ev := ee.events(id); !slices.Equal(ev, []string{escalation.EventAgreementProposed, escalation.EventAgreementAccepted, escalation.EventAgreementSettled}) {
			t.Fatalf("events %v", ev)
		}
		if n, err := ee.svc.MonitorAgreements(ctx); err != nil || n != 0 {
			t.Fatalf("monitor again: %d %v", n, err)
		}
	})
}

// TestAgreementBroken: an installment late past the grace days breaks
// the agreement on the test clock: its unpaid installment is canceled and
// the charges go back to overdue owing what the paid one did not cover,
// oldest first.
func TestAgreementBroken(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-a", 60)
		ee.charge(obj{"debtor_id": "maria", "external_id": "fatura-b", "amount": 40, "due_date": "2026-02-25", "description": "Taxa"})
		ag := ee.ok(201, "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"fatura-a", "fatura-b"}, "installments": 2,
			"discount_amount": 10, "down_payment": 20, "due_day": 31})
		amounts, dates, _ := installmentsOf(ag)
		// 100 - 10 = 90: 20 down today, 70 in two of 35 on the last day of
		// the month, the first after today: 31 March and 30 April.
		if !slices.Equal(amounts, []float64{20, 35, 35}) || !slices.Equal(dates, []string{"2026-03-10", "2026-03-31", "2026-04-30"}) {
			t.Fatalf("schedule %v %v", amounts, dates)
		}
		id := ag["id"].(string)
		ag = ee.ok(200, "POST", "/v1/agreements/"+id+"/accept", obj{})
		_, _, inst := installmentsOf(ag)
		ee.ok(201, "POST", "/v1/charges/"+inst[0]+"/payments", obj{"amount": 20})
		ee.ok(201, "POST", "/v1/charges/"+inst[1]+"/payments", obj{"amount": 35})
		ctx := context.Background()
		// The last installment is due 30 April; with 5 days of grace it is
		// not late on 5 May (the agreement only turns active).
		ee.clock.Set(coreStart.AddDate(0, 1, 25)) // 5 May
		if n, err := ee.svc.MonitorAgreements(ctx); err != nil || n != 1 {
			t.Fatalf("monitor on 5 May: %d %v", n, err)
		}
		if got := ee.ok(200, "GET", "/v1/agreements/"+id, nil); got["status"] != "active" {
			t.Fatalf("on 5 May %v", got)
		}
		ee.clock.Set(coreStart.AddDate(0, 1, 26)) // 6 May: 6 days late
		if n, err := ee.svc.MonitorAgreements(ctx); err != nil || n != 1 {
			t.Fatalf("monitor on 6 May: %d %v", n, err)
		}
		got := ee.ok(200, "GET", "/v1/agreements/"+id, nil)
		if got["status"] != "broken" || !strings.Contains(got["end_reason"].(string), "installment 2") {
			t.Fatalf("broken %v", got)
		}
		// 55 paid covers 55 of fatura-a's 60 (oldest first).
		if st, open := ee.chargeStatus("fatura-a"); st != "overdue" || open != 5 {
			t.Fatalf("fatura-a %s %v", st, open)
		}
		if st, open := ee.chargeStatus("fatura-b"); st != "overdue" || open != 40 {
			t.Fatalf("fatura-b %s %v", st, open)
		}
		if st, _ := ee.chargeStatus(inst[2]); st != "canceled" {
			t.Fatalf("the unpaid installment is %s", st)
		}
		if ev := ee.events(id); !slices.Equal(ev, []string{escalation.EventAgreementProposed, escalation.EventAgreementAccepted, escalation.EventAgreementBroken}) {
			t.Fatalf("events %v", ev)
		}
		ee.refused("POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"fatura-a"}, "installments": 1, "discount_percent": 50}, "max_discount")
	})
}

// TestAgreementCancelAndInput: a proposal is canceled and cancelling
// again changes nothing; bad input is refused naming the field and stores
// nothing.
func TestAgreementCancelAndInput(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-a", 60)
		ee.debtor("joao", "João Souza", "111.444.777-35")
		ee.charge(obj{"debtor_id": "joao", "external_id": "dele", "amount": 10, "due_date": "2026-02-25"})
		fields, _ := ee.fails(ee.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"dele"}, "installments": 2})
		wantFields(t, fields, "charge_ids.0")
		fields, _ = ee.fails(ee.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"fatura-a"}, "installments": 2, "down_payment": 60})
		wantFields(t, fields, "down_payment")
		fields, _ = ee.fails(ee.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"fatura-a"}, "installments": 2,
			"discount_percent": 1, "discount_amount": 1})
		wantFields(t, fields, "discount_amount")
		var n int
		if err := ee.DB.Get(context.Background(), &n, `SELECT COUNT(*) FROM dunning_agreements`); err != nil || n != 0 {
			t.Fatalf("%d agreements stored: %v", n, err)
		}
		id := ee.ok(201, "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"fatura-a"}, "installments": 2})["id"].(string)
		if got := ee.ok(200, "POST", "/v1/agreements/"+id+"/cancel", obj{}); got["status"] != "canceled" {
			t.Fatalf("canceled %v", got)
		}
		if got := ee.ok(200, "POST", "/v1/agreements/"+id+"/cancel", obj{}); got["status"] != "canceled" {
			t.Fatalf("again %v", got)
		}
		ee.fails(ee.Owner, 422, "UNPROCESSABLE", "POST", "/v1/agreements/"+id+"/accept", obj{})
		code, list := ee.call(ee.Owner, "GET", "/v1/agreements?status=canceled&debtor_id=maria", nil)
		if code != 200 || list["meta"].(obj)["total"] != 1.0 {
			t.Fatalf("list %d %v", code, list)
		}
	})
}
