package dunning

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestChargeCancelConfirmation: dunning_charges_cancel asks a 2026 client
// that can answer a form, naming the charge; runs once on accept (the
// confirmation spent in the cancellation's transaction, so replaying the
// answer is refused); and is refused with confirmation_required to a
// client that cannot confirm.
func TestChargeCancelConfirmation(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria da Silva", cpfOK)
		c := ce.charge(obj{"debtor_id": "maria", "external_id": "inv-7", "amount": 1234.5, "due_date": "2026-03-20"})
		id := c["id"].(string)
		call := func(state, responses string) (reply struct {
			Result struct {
				ResultType    string         `json:"resultType"`
				InputRequests map[string]any `json:"inputRequests"`
				RequestState  string         `json:"requestState"`
				Content       []struct{ Text string }
				IsError       bool `json:"isError"`
			}
			Error *struct{ Code int }
		}, raw string) {
			params := map[string]any{"name": "dunning_charges_cancel", "arguments": map[string]any{"id": "inv-7"},
				"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
					"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
			if state != "" {
				params["requestState"] = state
				params["inputResponses"] = json.RawMessage(responses)
			}
			raw = ce.RPC(ce.Owner, "tools/call", params)
			if err := json.Unmarshal([]byte(raw), &reply); err != nil {
				t.Fatalf("%v: %s", err, raw)
			}
			return reply, raw
		}
		first, raw := call("", "")
		if first.Result.ResultType != "input_required" || first.Result.RequestState == "" {
			t.Fatalf("first call: %s", raw)
		}
		var key string
		for k := range first.Result.InputRequests {
			key = k
		}
		form := first.Result.InputRequests[key].(map[string]any)["params"].(map[string]any)
		if want := "Cancel the pending charge of R$ 1.234,50 owed by 'Maria da Silva', due 20/03/2026 (external id inv-7)? Collection stops and the charge cannot be reopened."; form["message"] != want {
			t.Fatalf("message %q, want %q", form["message"], want)
		}
		if got := ce.ok(200, "GET", "/v1/charges/"+id, nil); got["status"] != "pending" {
			t.Fatalf("canceled before the answer: %v", got)
		}
		accept := `{"` + key + `":{"action":"accept","content":{"confirm":true}}}`
		done, raw := call(first.Result.RequestState, accept)
		if done.Result.IsError || len(done.Result.Content) == 0 || !strings.Contains(done.Result.Content[0].Text, `"status": "canceled"`) {
			t.Fatalf("accepted: %s", raw)
		}
		again, raw := call(first.Result.RequestState, accept)
		if again.Error == nil || again.Error.Code != -32602 {
			t.Fatalf("replayed answer: %s", raw)
		}
		if ev := ce.events(id); strings.Join(ev, ",") != ledger.EventChargeCreated+","+ledger.EventChargeCanceled {
			t.Fatalf("events: %v", ev)
		}
	})
}
