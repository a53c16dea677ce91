package dunning

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/regua"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestEscalatingStepParksAndRunsUnderTheRules: a régua's
// report_credit_bureau step without requires_approval still parks for a
// person when the step runner reaches it, sends nothing, and the preview
// says so; approving it runs the report under the route's rules — refused
// (and left pending) while the prior notice is missing, made once it was
// sent.
func TestEscalatingStepParksAndRunsUnderTheRules(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-1", 100)
		ee.ok(201, "POST", "/v1/collection-plans", obj{"name": "Régua dura", "external_id": "dura"})
		ee.ok(201, "POST", "/v1/collection-plans/dura/steps", obj{"offset_days": 25, "send_time": "10:00", "channel": "email",
			"action": "report_credit_bureau", "subject": "Negativação", "template": "Registro da dívida de {{debtor.name}}."})
		ee.ok(200, "PATCH", "/v1/collection-plans/dura", obj{"status": "active"})
		code, pv := ee.call(ee.Owner, "POST", "/v1/charges/fatura-1/collection-plans/dura/preview", nil)
		steps := pv["data"].(obj)["steps"].([]any)
		if code != 200 || steps[0].(obj)["outcome"] != "send_after_approval" {
			t.Fatalf("preview %d %v", code, pv)
		}
		ee.ok(201, "PUT", "/v1/charges/fatura-1/collection-plans/dura", nil)

		// Tuesday 17 March 10:00, the step's instant: the runner parks it.
		ee.clock.Set(time.Date(2026, 3, 17, 10, 1, 0, 0, brasilia))
		ctx := context.Background()
		job, err := ee.Jobs.Enqueue(ctx, regua.RunnerArgs{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ee.eventually("the step runner", func() bool {
			var st string
			_ = ee.DB.Get(ctx, &st, `SELECT state FROM river_job WHERE id = ?`, job)
			return st == "completed"
		})
		code, list := ee.call(ee.Owner, "GET", "/v1/approvals?charge_id=fatura-1", nil)
		rows := list["data"].([]any)
		if code != 200 || len(rows) != 1 {
			t.Fatalf("approvals %d %v", code, list)
		}
		ap := rows[0].(obj)
		if ap["status"] != "pending" || !strings.Contains(ap["message"].(obj)["body"].(string), "reports the charge") {
			t.Fatalf("approval %v", ap)
		}
		var sent int
		if err := ee.DB.Get(ctx, &sent, `SELECT COUNT(*) FROM dunning_notifications WHERE charge_id IS NOT NULL AND enrollment_id IS NOT NULL`); err != nil || sent != 0 {
			t.Fatalf("%d step notifications: %v", sent, err)
		}
		aid := ap["id"].(string)
		ee.refused("POST", "/v1/approvals/"+aid+"/approve", obj{}, "prior_notice")
		_, list = ee.call(ee.Owner, "GET", "/v1/approvals?charge_id=fatura-1&status=pending", nil)
		if list["meta"].(obj)["total"] != 1.0 {
			t.Fatalf("the refused approval is no longer pending: %v", list)
		}
		ee.ok(200, "PATCH", "/v1/settings", obj{"prior_notice_days": 0})
		ee.priorNotice("fatura-1")
		if got := ee.ok(200, "POST", "/v1/approvals/"+aid+"/approve", obj{}); got["status"] != "approved" {
			t.Fatalf("approved %v", got)
		}
		code, reports := ee.call(ee.Owner, "GET", "/v1/credit-reports?charge_id=fatura-1", nil)
		if code != 200 || reports["meta"].(obj)["total"] != 1.0 {
			t.Fatalf("reports %d %v", code, reports)
		}
		r := reports["data"].([]any)[0].(obj)
		ee.waitStatus(r["id"].(string), "confirmed")
	})
}
