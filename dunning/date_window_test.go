package dunning

import (
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestDateWindow: the three probes, refused with a
// VALIDATION_ERROR naming the field and the window — a charge due in
// year 0 (R$ 2 477 920 000 of fine and interest on R$ 10 000 000), the
// updated amount on 9999-12-31, a payment dated 1900 on a charge created
// today — while a legacy charge (created today, due years ago) still
// takes a payment dated before its creation.
func TestDateWindow(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria", cpfOK)
		for _, due := range []string{"0000-01-01", "1989-12-31", "2101-01-01", "9999-12-31"} {
			fields, _ := ce.fails(ce.Member, 422, "VALIDATION_ERROR", "POST", "/v1/charges",
				obj{"debtor_id": "maria", "amount": 10000000, "due_date": due, "fine_percent": 2, "interest_percent": 1})
			wantFields(t, fields, "due_date")
		}
		c := ce.charge(obj{"debtor_id": "maria", "amount": 1000, "due_date": "2026-03-10", "fine_percent": 2, "interest_percent": 1})
		id := c["id"].(string)
		ce.fails(ce.Member, 422, "VALIDATION_ERROR", "PATCH", "/v1/charges/"+id, obj{"due_date": "0000-01-01"})

		for _, on := range []string{"9999-12-31", "2100-12-31", "1900-01-01"} {
			fields, _ := ce.fails(ce.Member, 422, "VALIDATION_ERROR", "GET", "/v1/charges/"+id+"?on="+on, nil)
			wantFields(t, fields, "on")
		}
		if got := ce.ok(200, "GET", "/v1/charges/"+id+"?on=2030-03-10", nil); got["updated_amount"] == nil {
			t.Fatalf("a projection within ten years: %v", got)
		}

		path := "/v1/charges/" + id + "/payments"
		fields, _ := ce.fails(ce.Member, 422, "VALIDATION_ERROR", "POST", path, obj{"amount": 1, "paid_at": "1900-01-01T00:00:00Z"})
		wantFields(t, fields, "paid_at")
		if got := ce.ok(200, "GET", "/v1/charges/"+id, nil); num(got, "paid_amount") != 0 {
			t.Fatalf("a refused payment was recorded: %v", got)
		}

		// A legacy charge: created today, due in 2015, paid in 2015.
		old := ce.charge(obj{"debtor_id": "maria", "amount": 100, "due_date": "2015-05-10"})
		p := ce.ok(201, "POST", "/v1/charges/"+old["id"].(string)+"/payments", obj{"amount": 10, "paid_at": "2015-05-09T12:00:00-03:00"})
		if p["paid_at"] != "2015-05-09T15:00:00Z" {
			t.Fatalf("legacy payment: %v", p)
		}
	})
}
