package kadu

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestDestinationAddressRefused: an e-mail destination is parsed by
// platform/address at save time. The probe (a Bcc header after a
// CRLF) and the other hostile addresses are a 422 naming the field, and
// nothing is saved; a valid address is stored normalised (IDNA domain).
func TestDestinationAddressRefused(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startKadu(t, db, Config{ModelURL: "http://127.0.0.1:9/v1", DefaultModel: "gpt-4o-mini"})
		task := e.createTask(e.member, workflow("Conciliar"))
		path := "/api/v1/tasks/" + task.ID + "/destinations"
		for _, bad := range []string{
			"x@example.com\r\nBcc:evil@evil.example",
			"x@example.com\nBcc:evil@evil.example",
			"x@exam\x00ple.com",
			"x@example.com,evil@evil.example",
			`"Fin\r\nBcc: evil@evil.example" <x@example.com>`,
			"Fin <x@example.com>",
			"x@localhost",
			strings.Repeat("a", 65) + "@example.com",
		} {
			resp := e.wantError(e.admin, "PUT", path, map[string]any{"destinations": []map[string]any{
				{"kind": "webhook"}, {"kind": "email", "target": bad}}}, 422, "validation_failed")
			if strings.Contains(bad, "\r") && !strings.Contains(resp, "control character U+000D") {
				t.Errorf("%q: %s, want the reason", bad, resp)
			}
			if !strings.Contains(resp, `"field":"destinations.1.target"`) {
				t.Errorf("%q: %s", bad, resp)
			}
		}
		var stored string
		if err := db.Get(e.ctx, &stored, `SELECT destinations FROM kadu_tasks WHERE id = ?`, task.ID); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stored, "@") {
			t.Fatalf("a refused destination was saved: %s", stored)
		}
		e.do(e.admin, "PUT", path, map[string]any{"destinations": []map[string]any{{"kind": "email", "target": " Fin@Café.com.br "}}}, 200)
		if err := db.Get(e.ctx, &stored, `SELECT destinations FROM kadu_tasks WHERE id = ?`, task.ID); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stored, `"Fin@xn--caf-dma.com.br"`) {
			t.Fatalf("stored %s, want the address normalised", stored)
		}
	})
}

// TestRefusedDeliveryIsVisible: an address stored bad before save-time
// validation (written here straight into the row) is refused by the mail
// sender's last check, never reaches the relay, and the refusal is a
// failed step on the execution — not only a log line.
func TestRefusedDeliveryIsVisible(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		relay, smtpCfg := startKaduRelay(t)
		e := startKadu(t, db, Config{ModelURL: "http://127.0.0.1:9/v1", DefaultModel: "gpt-4o-mini", Mail: DeliveryMail{SMTP: smtpCfg}})
		task := e.createTask(e.member, workflow("Conciliar"))
		const bad = "x@example.com\r\nBcc:evil@evil.example"
		dest, _ := json.Marshal([]records.Destination{{Kind: "email", Target: bad}})
		if _, err := db.Exec(e.ctx, `UPDATE kadu_tasks SET destinations = ? WHERE id = ?`, string(dest), task.ID); err != nil {
			t.Fatal(err)
		}
		now := store.Now()
		x := &records.Execution{ID: store.NewID(), OrganizationID: e.Mine.ID, TaskID: task.ID, Trigger: records.TriggerManual, TriggeredBy: &e.member.ID,
			Status: records.ExecRunning, InputJSON: "{}", InputFileIDsJSON: "[]", MaxCostCents: 100, StartedAt: &now, CreatedAt: now, UpdatedAt: now}
		if err := records.InsertExecution(e.ctx, db, x); err != nil {
			t.Fatal(err)
		}
		if err := e.svc.machine.Transition(e.ctx, db, x, records.ExecSucceeded, records.Change{}); err != nil {
			t.Fatal(err)
		}
		// The queue's worker sends it: the relay never hears of it, and
		// the execution shows one failed step saying why.
		var out struct{ Data []stepJSON }
		var resp string
		for deadline := time.Now().Add(20 * time.Second); len(out.Data) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			resp = e.do(e.admin, "GET", "/api/v1/executions/"+x.ID+"/steps", nil, 200)
			if err := json.Unmarshal([]byte(resp), &out); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(200 * time.Millisecond) // a second (wrong) step would show now
		resp = e.do(e.admin, "GET", "/api/v1/executions/"+x.ID+"/steps", nil, 200)
		if err := json.Unmarshal([]byte(resp), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Data) != 1 {
			t.Fatalf("steps %s", resp)
		}
		if msgs, _ := relay.messages(); len(msgs) != 0 {
			t.Fatalf("the relay received %d messages", len(msgs))
		}
		st := out.Data[0]
		if st.Status != records.StepFailed || st.ToolName == nil || *st.ToolName != deliveryStepTool || st.Error == nil ||
			!strings.Contains(*st.Error, "not delivered") || !strings.Contains(string(st.Arguments), `"to"`) {
			t.Fatalf("step %s", resp)
		}
	})
}
