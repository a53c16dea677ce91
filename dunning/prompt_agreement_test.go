package dunning

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestProposeAgreementPrompt: the server computes the figures (the
// charges' updated total, the discount capped by the organization's
// setting, the installments in exact cents) and the prompt tells the
// model to create the proposal only after the person agrees; bad
// arguments are invalid params; another organization's debtor is not
// found.
func TestProposeAgreementPrompt(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ee.overdueCharge("fatura-a", 60)
		ee.charge(obj{"debtor_id": "maria", "external_id": "fatura-b", "amount": 40, "due_date": "2026-04-25"})
		ee.ok(200, "PATCH", "/v1/settings", obj{"agreement_max_discount_percent": 10})
		text := ee.promptText("propose_agreement", obj{"debtor_id": "maria", "max_discount_pct": "25", "max_installments": "3"})
		for _, want := range []string{"add up to R$ 100,00 today", "With a discount of 10% (R$ 10,00) they would pay R$ 90,00",
			"- 3 installments: the first R$ 30,00, then R$ 30,00 each", "- 1 installments: the first R$ 90,00",
			"Only after they agree, call dunning_agreements_create", `"installments":3`, "never compute or add amounts yourself"} {
			if !strings.Contains(text, want) {
				t.Errorf("the prompt has no %q:\n%s", want, text)
			}
		}
		text = ee.promptText("propose_agreement", obj{"debtor_id": "maria", "max_installments": "7"})
		if !strings.Contains(text, "- 7 installments: the first R$ 14,32, then R$ 14,28 each") {
			t.Errorf("seven installments of R$ 100,00:\n%s", text)
		}
		for _, bad := range []obj{{"debtor_id": "maria", "max_installments": "0"}, {"debtor_id": "maria", "max_discount_pct": "x"}, {"debtor_id": " "}} {
			if _, rpcErr := rpcAnswer(t, ee.RPC(ee.Owner, "prompts/get", obj{"name": "propose_agreement", "arguments": bad})); rpcErr == nil || rpcErr["code"].(float64) != -32602 {
				t.Errorf("%v: %v", bad, rpcErr)
			}
		}
		if _, rpcErr := rpcAnswer(t, ee.RPC(ee.Other, "prompts/get", obj{"name": "propose_agreement", "arguments": obj{"debtor_id": "maria"}})); rpcErr == nil {
			t.Errorf("another organization's debtor was found")
		}
	})
}
