package dunning

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestChargeWaiver: forgiving is its own act, for admins: R$ 1 040,33
// owed on 2026-12-01, the fine forgiven leaves 1 020,33 and the
// interest forgiven too leaves 1 000,00; the waiver is recorded with who
// and why, dunning.charge.waived is emitted, a reason is required,
// nothing left to forgive is UNPROCESSABLE and a member is FORBIDDEN.
func TestChargeWaiver(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria", cpfOK)
		id, _ := ce.lateImputationCharge(t, "w")
		path := "/v1/charges/" + id + "/waivers"

		ce.fails(ce.Member, 403, "FORBIDDEN", "POST", path, obj{"fine": true, "reason": "goodwill"})
		fields, _ := ce.fails(ce.Admin, 422, "VALIDATION_ERROR", "POST", path, obj{"fine": true, "reason": "  "})
		wantFields(t, fields, "reason")
		fields, _ = ce.fails(ce.Admin, 422, "VALIDATION_ERROR", "POST", path, obj{"reason": "nothing"})
		wantFields(t, fields, "fine")

		code, out := ce.call(ce.Admin, "POST", path, obj{"fine": true, "reason": "first delay in ten years"})
		data, _ := out["data"].(obj)
		if code != 201 || num(data["waiver"].(obj), "fine_waived") != 20 || num(data["waiver"].(obj), "interest_waived") != 0 ||
			data["waiver"].(obj)["created_by"] != ce.Admin.ID || num(data["charge"].(obj), "updated_amount") != 1020.33 {
			t.Fatalf("fine waived: %d %v", code, out)
		}
		ce.fails(ce.Admin, 422, "UNPROCESSABLE", "POST", path, obj{"fine": true, "reason": "again"})
		out = ce.ok(201, "POST", path, obj{"interest": true, "reason": "bank strike"})
		if ch := out["charge"].(obj); num(ch, "updated_amount") != 1000 || num(out["waiver"].(obj), "interest_waived") != 20.33 || ch["status"] == "paid" {
			t.Fatalf("interest waived: %v", out)
		}
		var n int
		var total int64
		if err := db.Get(t.Context(), &n, `SELECT COUNT(*) FROM dunning_charge_waivers WHERE charge_id = ?`, id); err != nil || n != 2 {
			t.Fatalf("waivers stored: %d %v", n, err)
		}
		if err := db.Get(t.Context(), &total, `SELECT SUM(fine_cents + interest_cents) FROM dunning_charge_waivers WHERE charge_id = ?`, id); err != nil || total != 4033 {
			t.Fatalf("waived in all: %d %v", total, err)
		}
		if ev := strings.Join(ce.events(id), ","); strings.Count(ev, ledger.EventChargeWaived) != 2 {
			t.Fatalf("events: %s", ev)
		}
		// A payment of the face value now clears it: nothing was forgiven by it.
		if p := ce.ok(201, "POST", "/v1/charges/"+id+"/payments", obj{"amount": 1000}); p["charge"].(obj)["status"] != "paid" {
			t.Fatalf("paying the rest: %v", p)
		}
	})
}
