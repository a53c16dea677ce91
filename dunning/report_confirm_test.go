package dunning

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestReportConfirmationMatrix runs the destructive
// dunning_charges_report_credit_bureau in every era: clients that cannot
// confirm are answered confirmation_required and nothing is reported; a
// 2026-07-28 client with form elicitation is asked (naming the bureau,
// the charge and the debtor), a decline reports nothing, an accept
// reports once, and the used answer never reports again.
func TestReportConfirmationMatrix(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-1", 100)
		ee.ok(200, "PATCH", "/v1/settings", obj{"prior_notice_days": 0})
		ee.priorNotice("fatura-1")
		reports := func() float64 {
			t.Helper()
			_, list := ee.call(ee.Owner, "GET", "/v1/credit-reports", nil)
			return list["meta"].(obj)["total"].(float64)
		}
		const tool = "dunning_charges_report_credit_bureau"
		args := map[string]any{"id": "fatura-1", "bureau": "spc"}
		for name, call := range map[string]cancelCall{
			"2026 without elicitation":  {era: "2026-07-28", caps: `{}`, args: args, tool: tool},
			"2026 with URL elicitation": {era: "2026-07-28", caps: `{"elicitation":{"url":{}}}`, args: args, tool: tool},
			"2025-06-18":                {era: "2025-06-18", args: args, tool: tool},
			"2025-03-26":                {era: "2025-03-26", args: args, tool: tool},
		} {
			r := ee.cancelTool(call)
			var body struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal([]byte(r.text()), &body); err != nil {
				t.Fatalf("%s: %v: %s", name, err, r.raw)
			}
			if !r.Result.IsError || body.Error.Code != "confirmation_required" || !strings.Contains(body.Error.Message, tool+" is a destructive tool") {
				t.Errorf("%s: %s", name, r.raw)
			}
			if n := reports(); n != 0 {
				t.Fatalf("%s: %v reports", name, n)
			}
		}
		form := cancelCall{era: "2026-07-28", caps: `{"elicitation":{"form":{}}}`, args: args, tool: tool}
		ask := ee.cancelTool(form)
		if ask.Result.ResultType != "input_required" {
			t.Fatalf("asked: %s", ask.raw)
		}
		msg := ask.Result.InputRequests["confirm"].(map[string]any)["params"].(map[string]any)["message"].(string)
		if !strings.Contains(msg, "Report to spc the overdue charge fatura-1 of R$ 100,00 owed by 'Maria da Silva'") {
			t.Fatalf("question: %q", msg)
		}
		declined := form
		declined.state, declined.responses = ask.Result.RequestState, `{"confirm":{"action":"decline"}}`
		if r := ee.cancelTool(declined); !r.Result.IsError || reports() != 0 {
			t.Fatalf("declined: %s", r.raw)
		}
		ask = ee.cancelTool(form)
		accepted := form
		accepted.state, accepted.responses = ask.Result.RequestState, `{"confirm":{"action":"accept","content":{"confirm":true}}}`
		done := ee.cancelTool(accepted)
		if done.Result.IsError || !strings.Contains(done.text(), "\"status\": \"requested\"") || !strings.Contains(done.text(), "\"bureau\": \"spc\"") {
			t.Fatalf("accepted: %s", done.raw)
		}
		if r := ee.cancelTool(accepted); r.Error == nil || r.Error.Code != -32602 || reports() != 1 {
			t.Fatalf("replayed: %s", r.raw)
		}
		// A second report, confirmed, is refused by its rule.
		ask = ee.cancelTool(form)
		accepted.state = ask.Result.RequestState
		if r := ee.cancelTool(accepted); !r.Result.IsError || !strings.Contains(r.text(), "rule one_active_report") || reports() != 1 {
			t.Fatalf("second: %s", r.raw)
		}
	})
}

// TestEscalationAnnotations: the tools of reports, protests and
// agreements carry the annotations the product documents.
func TestEscalationAnnotations(t *testing.T) {
	t.Parallel()
	l, err := productCatalog()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]bool{ // read-only, destructive, idempotent
		"dunning_charges_report_credit_bureau": {false, true, true},
		"dunning_charges_remove_credit_report": {false, true, true},
		"dunning_charges_protest":              {false, true, true},
		"dunning_charges_protest_cancel":       {false, true, true},
		"dunning_agreements_create":            {false, true, false},
		"dunning_agreements_accept":            {false, true, true},
		"dunning_agreements_cancel":            {false, true, true},
		"dunning_agreements_list":              {true, false, false},
		"dunning_agreements_get":               {true, false, false},
		"dunning_credit_reports_list":          {true, false, false},
		"dunning_credit_reports_get":           {true, false, false},
		"dunning_protests_list":                {true, false, false},
		"dunning_protests_get":                 {true, false, false},
	}
	seen := 0
	for _, tool := range l.Catalog.Tools {
		w, ok := want[tool.Name]
		if !ok {
			continue
		}
		seen++
		a := tool.Annotations
		if *a.ReadOnlyHint != w[0] || *a.DestructiveHint != w[1] || (!w[0] && *a.IdempotentHint != w[2]) || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
	}
	if seen != len(want) {
		t.Fatalf("found %d of the %d tools", seen, len(want))
	}
}
