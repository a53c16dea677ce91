package dunning

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The charge: R$ 1 000 due 2026-10-01, 2 % fine, 1 % a month;
// on 2026-12-01 (61 days late) it costs R$ 1 040,33 — fine R$ 20,00,
// interest R$ 20,33.
var imputationDay = time.Date(2026, 12, 1, 12, 0, 0, 0, brasilia)

// lateImputationCharge creates that charge for a CPF debtor with the
// clock on 2026-12-01 and answers its payments path.
func (ce *dunEnv) lateImputationCharge(t *testing.T, ext string) (string, string) {
	t.Helper()
	ce.clock.Set(time.Date(2026, 9, 20, 12, 0, 0, 0, brasilia))
	c := ce.charge(obj{"debtor_id": "maria", "external_id": ext, "amount": 1000, "due_date": "2026-10-01", "fine_percent": 2, "interest_percent": 1})
	ce.clock.Set(imputationDay)
	id := c["id"].(string)
	if got := ce.ok(200, "GET", "/v1/charges/"+id, nil); num(got, "updated_amount") != 1040.33 {
		t.Fatalf("before paying: %v", got)
	}
	return id, "/v1/charges/" + id + "/payments"
}

// TestPaymentImputationInterestFirst: Código Civil art. 354 by default.
// The face value on the late charge pays interest 20,33, fine 20,00 and
// principal 959,67, and 40,33 stays open with the charge overdue; R$ 500
// leaves 540,33; paying 1 040,33 clears it. The answer, the charge's
// detail and the paid event show how each payment was applied.
func TestPaymentImputationInterestFirst(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria", cpfOK)

		id, path := ce.lateImputationCharge(t, "face")
		p := ce.ok(201, "POST", path, obj{"amount": 1000})
		applied, left, ch := p["applied"].(obj), p["remaining"].(obj), p["charge"].(obj)
		if num(applied, "interest") != 20.33 || num(applied, "fine") != 20 || num(applied, "principal") != 959.67 ||
			num(left, "total") != 40.33 || num(left, "principal") != 40.33 || num(left, "fine") != 0 || num(left, "interest") != 0 {
			t.Fatalf("face value: %v", p)
		}
		if ch["status"] != "overdue" || num(ch, "open_amount") != 40.33 || num(ch, "updated_amount") != 40.33 || num(ch, "fine_amount") != 0 {
			t.Fatalf("charge after the face value: %v", ch)
		}
		got := ce.ok(200, "GET", "/v1/charges/"+id, nil)
		if pays := got["payments"].([]any); len(pays) != 1 || num(pays[0].(obj)["applied"].(obj), "principal") != 959.67 {
			t.Fatalf("detail: %v", got["payments"])
		}
		// Thirty days later interest runs on the 40,33 left: 0,40; no new fine.
		ce.clock.Set(imputationDay.AddDate(0, 0, 30))
		if got := ce.ok(200, "GET", "/v1/charges/"+id, nil); num(got, "updated_amount") != 40.73 || num(got, "fine_amount") != 0 {
			t.Fatalf("a month later: %v", got)
		}

		_, path = ce.lateImputationCharge(t, "half")
		p = ce.ok(201, "POST", path, obj{"amount": 500})
		if ch := p["charge"].(obj); ch["status"] != "overdue" || num(ch, "updated_amount") != 540.33 || num(p["remaining"].(obj), "total") != 540.33 {
			t.Fatalf("500: %v", p)
		}

		id, path = ce.lateImputationCharge(t, "all")
		p = ce.ok(201, "POST", path, obj{"amount": 1040.33})
		if ch := p["charge"].(obj); ch["status"] != "paid" || num(ch, "updated_amount") != 0 || num(p["remaining"].(obj), "total") != 0 {
			t.Fatalf("updated amount: %v", p)
		}
		var payload string
		if err := db.Get(t.Context(), &payload, `SELECT payload FROM system_events WHERE subject_id = ? AND slug = ?`, id, ledger.EventChargePaid); err != nil {
			t.Fatal(err)
		}
		var env struct {
			Data struct {
				Payment struct {
					Applied map[string]float64 `json:"applied"`
				} `json:"payment"`
			}
		}
		if err := json.Unmarshal([]byte(payload), &env); err != nil || env.Data.Payment.Applied["interest"] != 20.33 ||
			env.Data.Payment.Applied["principal"] != 1000 {
			t.Fatalf("paid event: %s %v", payload, err)
		}
	})
}

// TestPaymentImputationPrincipalFirst: an organization that agreed
// otherwise (art. 354's "salvo estipulação em contrário") keeps the old
// order — R$ 500 leaves R$ 500 of principal, R$ 520,17 with fine and
// interest computed on it — but the face value still leaves the 40,33
// of fine and interest open, and only 1 040,33 clears it.
func TestPaymentImputationPrincipalFirst(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria", cpfOK)
		if st := ce.ok(200, "GET", "/v1/settings", nil); st["payment_imputation"] != "interest_first" {
			t.Fatalf("default: %v", st)
		}
		fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "PATCH", "/v1/settings", obj{"payment_imputation": "fine_first"})
		wantFields(t, fields, "payment_imputation")
		if st := ce.ok(200, "PATCH", "/v1/settings", obj{"payment_imputation": "principal_first"}); st["payment_imputation"] != "principal_first" {
			t.Fatalf("settings: %v", st)
		}

		_, path := ce.lateImputationCharge(t, "half")
		p := ce.ok(201, "POST", path, obj{"amount": 500})
		if ch := p["charge"].(obj); num(p["applied"].(obj), "principal") != 500 || num(ch, "open_amount") != 500 || num(ch, "updated_amount") != 520.17 {
			t.Fatalf("500: %v", p)
		}

		_, path = ce.lateImputationCharge(t, "face")
		p = ce.ok(201, "POST", path, obj{"amount": 1000})
		if ch := p["charge"].(obj); ch["status"] != "overdue" || num(ch, "open_amount") != 0 || num(ch, "updated_amount") != 40.33 {
			t.Fatalf("face value: %v", p)
		}
		p = ce.ok(201, "POST", path, obj{"amount": 40.33})
		if ch := p["charge"].(obj); ch["status"] != "paid" || num(p["applied"].(obj), "fine") != 20 || num(p["applied"].(obj), "interest") != 20.33 {
			t.Fatalf("the rest: %v", p)
		}
	})
}
