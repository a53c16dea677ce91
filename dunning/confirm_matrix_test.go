package dunning

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
)

// matrixReply is one answer of the endpoint to a tools/call.
type matrixReply struct {
	raw    string
	Result struct {
		ResultType    string         `json:"resultType"`
		InputRequests map[string]any `json:"inputRequests"`
		RequestState  string         `json:"requestState"`
		Content       []struct{ Text string }
		IsError       bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r matrixReply) text() string {
	if len(r.Result.Content) == 0 {
		return ""
	}
	return r.Result.Content[0].Text
}

// cancelCall is a tools/call of dunning_charges_cancel in one era: a
// 2026-07-28 call declares caps as its client capabilities; a 2025 call
// is a bare JSON-RPC request with that MCP-Protocol-Version, as a client
// that initialized at that version sends it.
type cancelCall struct {
	era, caps, state, responses string
	args                        map[string]any
	// tool is the tool called (default dunning_charges_cancel).
	tool string
}

func (ce *dunEnv) cancelTool(c cancelCall) matrixReply {
	ce.t.Helper()
	tool := c.tool
	if tool == "" {
		tool = "dunning_charges_cancel"
	}
	params := map[string]any{"name": tool, "arguments": c.args}
	header := []string{"MCP-Protocol-Version", c.era}
	if c.era == "2026-07-28" {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": c.era,
			"io.modelcontextprotocol/clientCapabilities": json.RawMessage(c.caps)}
		header = append(header, "Mcp-Method", "tools/call", "Mcp-Name", tool)
	}
	if c.state != "" {
		params["requestState"] = c.state
		params["inputResponses"] = json.RawMessage(c.responses)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
	code, raw := ce.DoToken(ce.Token(ce.Owner, "mcp"), "POST", productkit.MCPPath, body, header...)
	out := matrixReply{raw: raw}
	if err := json.Unmarshal([]byte(raw), &out); err != nil || code != 200 {
		ce.t.Fatalf("%s: %d %v: %s", c.era, code, err, raw)
	}
	return out
}

// TestCancelConfirmationMatrix runs the destructive dunning_charges_cancel
// in every era and with every kind of client: a 2026-07-28 client with form
// elicitation is asked (input_required), and the cancellation runs once on
// accept and never on decline; a 2026 client without elicitation, one that
// declared only URL elicitation, and 2025-06-18 and 2025-03-26 clients are
// answered confirmation_required — the endpoint's indented JSON, saying a
// retry will not help — and nothing changes.
func TestCancelConfirmationMatrix(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria da Silva", cpfOK)
		ce.charge(obj{"debtor_id": "maria", "external_id": "inv-1", "amount": 100, "due_date": "2026-03-20"})
		c := ce.charge(obj{"debtor_id": "maria", "external_id": "inv-2", "amount": 200, "due_date": "2026-03-20"})
		status := func(ext string) string {
			t.Helper()
			return ce.ok(200, "GET", "/v1/charges/"+ext, nil)["status"].(string)
		}
		args := map[string]any{"id": "inv-1"}

		// Clients that cannot confirm: refused without asking, nothing done.
		for name, call := range map[string]cancelCall{
			"2026 without elicitation":  {era: "2026-07-28", caps: `{}`, args: args},
			"2026 with URL elicitation": {era: "2026-07-28", caps: `{"elicitation":{"url":{}}}`, args: args},
			"2025-06-18":                {era: "2025-06-18", args: args},
			"2025-03-26":                {era: "2025-03-26", args: args},
		} {
			r := ce.cancelTool(call)
			var body struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal([]byte(r.text()), &body); err != nil {
				t.Fatalf("%s: %v: %s", name, err, r.raw)
			}
			if r.Error != nil || !r.Result.IsError || r.Result.RequestState != "" || body.Error.Code != "confirmation_required" ||
				!strings.Contains(body.Error.Message, "dunning_charges_cancel is a destructive tool") || !strings.Contains(body.Error.Message, "Retrying will not help") ||
				!strings.HasPrefix(r.text(), "{\n  \"error\": {\n    \"code\": \"confirmation_required\"") {
				t.Errorf("%s: %s", name, r.raw)
			}
			if s := status("inv-1"); s != "pending" {
				t.Fatalf("%s: the charge is %s", name, s)
			}
		}

		// 2026 with form elicitation: asked, naming the charge; a decline
		// does nothing and spends the question.
		form := cancelCall{era: "2026-07-28", caps: `{"elicitation":{"form":{}}}`, args: args}
		ask := ce.cancelTool(form)
		if ask.Result.ResultType != "input_required" || ask.Result.RequestState == "" {
			t.Fatalf("asked: %s", ask.raw)
		}
		q := ask.Result.InputRequests["confirm"].(map[string]any)
		params := q["params"].(map[string]any)
		if q["method"] != "elicitation/create" || params["mode"] != "form" || !strings.Contains(params["message"].(string), "R$ 100,00 owed by 'Maria da Silva'") {
			t.Fatalf("question: %v", q)
		}
		declined := form
		declined.state, declined.responses = ask.Result.RequestState, `{"confirm":{"action":"decline"}}`
		if r := ce.cancelTool(declined); !r.Result.IsError || !strings.Contains(r.text(), "Nothing was done") || status("inv-1") != "pending" {
			t.Fatalf("declined: %s", r.raw)
		}
		accept := `{"confirm":{"action":"accept","content":{"confirm":true}}}`
		declined.responses = accept
		if r := ce.cancelTool(declined); r.Error == nil || r.Error.Code != -32602 || status("inv-1") != "pending" {
			t.Fatalf("accepting a declined question: %s", r.raw)
		}

		// Accept: runs once; the same answer again runs nothing.
		ask = ce.cancelTool(form)
		accepted := form
		accepted.state, accepted.responses = ask.Result.RequestState, accept
		done := ce.cancelTool(accepted)
		if done.Error != nil || done.Result.IsError || done.Result.ResultType != "complete" || !strings.Contains(done.text(), "\n    \"status\": \"canceled\"") {
			t.Fatalf("accepted: %s", done.raw)
		}
		if r := ce.cancelTool(accepted); r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "already used") {
			t.Fatalf("replayed: %s", r.raw)
		}
		if s := status("inv-1"); s != "canceled" {
			t.Fatalf("after accept: %s", s)
		}
		// The state was bound to its arguments: it cannot cancel another
		// charge.
		other := accepted
		other.args = map[string]any{"id": "inv-2"}
		if r := ce.cancelTool(other); r.Error == nil || r.Error.Code != -32602 || status("inv-2") != "pending" {
			t.Fatalf("a state for inv-1 used on inv-2: %s", r.raw)
		}
		if ev := ce.events(c["id"].(string)); strings.Join(ev, ",") != ledger.EventChargeCreated {
			t.Fatalf("inv-2 events: %v", ev)
		}
	})
}
