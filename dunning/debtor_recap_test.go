package dunning

import (
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestCapsFollowDebtorKind: the caps apply when the amount is computed,
// from the debtor as it is now. A company's R$ 1 000 charge with a 10 %
// fine and 3 % a month costs 1 161,00 on 2026-12-01 (61 days late);
// when its document becomes a CPF (PATCH) the same charge costs
// 1 040,33 at once — 2 % (CDC art. 52 §1) and 1 % a month (Lei de
// Usura) — and the answer lists it in charges_recapped; back to a CNPJ
// (PUT) the stored rates apply again, within the company caps, which are
// applied at computation too (lowered to 5 %, the fine follows).
func TestCapsFollowDebtorKind(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.ok(200, "PATCH", "/v1/settings", obj{"company_interest_cap_percent": 3})
		ce.debtor("acme", "ACME Ltda", cnpjOK)
		ce.clock.Set(time.Date(2026, 9, 20, 12, 0, 0, 0, brasilia))
		c := ce.charge(obj{"debtor_id": "acme", "external_id": "big", "amount": 1000, "due_date": "2026-10-01", "fine_percent": 10, "interest_percent": 3})
		small := ce.charge(obj{"debtor_id": "acme", "external_id": "small", "amount": 1000, "due_date": "2026-10-01", "fine_percent": 2, "interest_percent": 1})
		ce.clock.Set(imputationDay)
		get := func(id string) obj { return ce.ok(200, "GET", "/v1/charges/"+id, nil) }
		id := c["id"].(string)
		if got := get(id); num(got, "updated_amount") != 1161 || num(got, "fine_amount") != 100 || num(got, "interest_amount") != 61 {
			t.Fatalf("company: %v", got)
		}

		out := ce.ok(200, "PATCH", "/v1/debtors/acme", obj{"document": cpfOK})
		recap, _ := out["charges_recapped"].([]any)
		if len(recap) != 1 {
			t.Fatalf("recapped: %v", out)
		}
		r := recap[0].(obj)
		if r["id"] != id || num(r, "fine_percent_before") != 10 || num(r, "fine_percent_now") != 2 || num(r, "fine_percent_stored") != 10 ||
			num(r, "interest_percent_before") != 3 || num(r, "interest_percent_now") != 1 {
			t.Fatalf("recap: %v", r)
		}
		if got := get(id); num(got, "updated_amount") != 1040.33 || num(got, "fine_amount") != 20 || num(got, "interest_amount") != 20.33 {
			t.Fatalf("as a natural person: %v", got)
		}
		if got := get(small["id"].(string)); num(got, "updated_amount") != 1040.33 {
			t.Fatalf("a charge within both caps: %v", got)
		}
		// A payment now crystallises the capped amounts, not the stored rates.
		if p := ce.ok(201, "POST", "/v1/charges/"+id+"/payments", obj{"amount": 40.33}); num(p["applied"].(obj), "fine") != 20 || num(p["charge"].(obj), "open_amount") != 1000 {
			t.Fatalf("payment as a natural person: %v", p)
		}
		// A PATCH that keeps the kind recaps nothing.
		if out := ce.ok(200, "PATCH", "/v1/debtors/acme", obj{"name": "Ana"}); len(out["charges_recapped"].([]any)) != 0 {
			t.Fatalf("same kind: %v", out)
		}

		code, back := ce.call(ce.Owner, "PUT", "/v1/debtors/acme", obj{"name": "ACME Ltda", "document": cnpjOK})
		data, _ := back["data"].(obj)
		if code != 200 || len(data["charges_recapped"].([]any)) != 1 {
			t.Fatalf("back to CNPJ: %d %v", code, back)
		}
		other := ce.charge(obj{"debtor_id": "acme", "external_id": "fresh", "amount": 1000, "due_date": "2026-10-01", "fine_percent": 10, "interest_percent": 3})
		if got := get(other["id"].(string)); num(got, "updated_amount") != 1161 {
			t.Fatalf("company again: %v", got)
		}
		ce.ok(200, "PATCH", "/v1/settings", obj{"company_fine_cap_percent": 5, "company_interest_cap_percent": 2})
		if got := get(other["id"].(string)); num(got, "fine_amount") != 50 || num(got, "interest_amount") != 40.67 {
			t.Fatalf("company caps lowered: %v", got)
		}
	})
}
