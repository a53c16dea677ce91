package dunning

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// reguaSteps is a four-step plan: D−5 e-mail, D0 SMS, D+3 WhatsApp, D+10
// e-mail. For a charge due Tuesday 10 March 2026 they run (São Paulo,
// UTC−3) on 5 March 12:00Z, 10 March 12:00Z, 13 March 13:00Z and 20 March
// 12:00Z.
func (pe *dunEnv) reguaPlan(name string) (collection.PlanDetailJSON, []collection.StepJSON) {
	p := pe.createPlan(name)
	steps := []collection.StepJSON{
		pe.addStep(p.ID, emailStep(-5, "09:00")),
		pe.addStep(p.ID, map[string]any{"offset_days": 0, "send_time": "09:00", "channel": "sms", "template": "{{debtor.name}}, vence hoje: {{charge.amount}}"}),
		pe.addStep(p.ID, map[string]any{"offset_days": 3, "send_time": "10:00", "channel": "whatsapp", "template": "{{debtor.name}}, em atraso: {{charge.updated_amount}}"}),
		pe.addStep(p.ID, emailStep(10, "09:00")),
	}
	pe.activate(p.ID)
	return p, steps
}

func utcAt(month time.Month, day, hour int) time.Time {
	return time.Date(2026, month, day, hour, 0, 0, 0, time.UTC)
}

func enrollPath(chargeID, planID string) string {
	return "/v1/charges/" + chargeID + "/collection-plans/" + planID
}

// TestEnrollments: enrolling computes each step's instant, skips the
// steps already past (no retroactive messages) and names the next one;
// it is idempotent; only an active plan and a pending or overdue charge
// qualify; unenrolling stops it, enrolling again starts over; changes of
// the plan reschedule it; archiving the plan and the charge leaving
// collection stop it (the charge-closed hook, in the caller's
// transaction); each change emits its dunning.enrollment event.
func TestEnrollments(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		pe := newEnv(t, db, envOptions{start: utcAt(time.March, 8, 15)})
		p, steps := pe.reguaPlan("Régua")
		debtor := seedDebtor(t, db, debtorSeed{OrgID: pe.Mine.ID, Name: "Maria da Silva", Emails: []string{"maria@example.com"}, Phones: []string{"+5511987654321"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: pe.Mine.ID, DebtorID: debtor, ExternalID: "fat-1", Due: "2026-03-10", NoFees: true})

		// Enrolled on Sunday 8 March: D−5 is past.
		ans := planData[collection.EnrollmentAnswerJSON](t, pe.must(pe.Owner, 201, "PUT", enrollPath(charge, p.ID), nil))
		if ans.Status != "active" || ans.SkippedPast != 1 || len(ans.SkippedPastSteps) != 1 || ans.SkippedPastSteps[0].StepID != steps[0].ID ||
			!ans.SkippedPastSteps[0].RunAt.Equal(utcAt(time.March, 5, 12)) || ans.NextStep == nil || ans.NextStep.StepID != steps[1].ID ||
			*ans.NextStepID != steps[1].ID || !ans.NextRunAt.Equal(utcAt(time.March, 10, 12)) || len(ans.UpcomingSteps) != 3 ||
			!ans.UpcomingSteps[2].RunAt.Equal(utcAt(time.March, 20, 12)) || !ans.StartedAt.Equal(utcAt(time.March, 8, 15)) || ans.Plan.ID != p.ID {
			t.Fatalf("enrolled %+v", ans)
		}
		if got := planEvents(t, db, pe.Mine.ID); strings.Join(got, ",") != "dunning.enrollment.started" {
			t.Fatalf("events %v", got)
		}
		// Again, by external id: nothing changes.
		again := planData[collection.EnrollmentAnswerJSON](t, pe.must(pe.Owner, 200, "PUT", enrollPath("fat-1", p.ID), nil))
		if again.ID != ans.ID || !again.UpdatedAt.Equal(ans.UpdatedAt) || again.SkippedPast != 1 || len(planEvents(t, db, pe.Mine.ID)) != 1 {
			t.Fatalf("again %+v", again)
		}

		// A new step before the next one reschedules the enrollment.
		d1 := pe.addStep(p.ID, map[string]any{"offset_days": -1, "send_time": "11:00", "channel": "sms", "template": "Amanhã vence {{charge.amount}}"})
		e, err := collection.GetEnrollment(ctx, db, pe.Mine.ID, charge, p.ID, "")
		if err != nil || *e.NextStepID != d1.ID || !e.NextRunAt.Equal(utcAt(time.March, 9, 14)) {
			t.Fatalf("rescheduled %+v %v", e, err)
		}
		pe.must(pe.Owner, 200, "PATCH", "/v1/collection-plans/"+p.ID+"/steps/"+d1.ID, map[string]any{"status": "disabled"})
		if e, _ = collection.GetEnrollment(ctx, db, pe.Mine.ID, charge, p.ID, ""); *e.NextStepID != steps[1].ID {
			t.Fatalf("after disabling: %+v", e)
		}

		// The step runner advances it once the due step ran.
		pe.clock.Set(utcAt(time.March, 10, 12).Add(time.Minute))
		err = db.WithTx(ctx, func(tx *store.Tx) error { return pe.svc.AdvanceEnrollment(ctx, tx, &e) })
		if err != nil || *e.NextStepID != steps[2].ID || !e.NextRunAt.Equal(utcAt(time.March, 13, 13)) {
			t.Fatalf("advanced %+v %v", e, err)
		}
		// Down for a week: the missed D+3 is handled once, then D+10 —
		// not a burst of everything missed.
		pe.clock.Set(utcAt(time.March, 19, 12))
		err = db.WithTx(ctx, func(tx *store.Tx) error { return pe.svc.AdvanceEnrollment(ctx, tx, &e) })
		if err != nil || *e.NextStepID != steps[3].ID {
			t.Fatalf("advanced after downtime %+v %v", e, err)
		}
		pe.clock.Set(utcAt(time.March, 20, 13))
		err = db.WithTx(ctx, func(tx *store.Tx) error { return pe.svc.AdvanceEnrollment(ctx, tx, &e) })
		if err != nil || e.Status != "completed" || e.NextStepID != nil || e.NextRunAt != nil {
			t.Fatalf("completed %+v %v", e, err)
		}
		if got := planEvents(t, db, pe.Mine.ID); strings.Join(got, ",") != "dunning.enrollment.started,dunning.enrollment.completed" {
			t.Fatalf("events %v", got)
		}

		// A completed enrollment starts again from now when enrolled again;
		// unenrolling stops it, and a second unenroll changes nothing.
		pe.clock.Set(utcAt(time.March, 9, 12))
		re := planData[collection.EnrollmentAnswerJSON](t, pe.must(pe.Owner, 200, "PUT", enrollPath(charge, p.ID), nil))
		if re.ID != ans.ID || re.Status != "active" || *re.NextStepID != steps[1].ID || !re.StartedAt.Equal(utcAt(time.March, 9, 12)) {
			t.Fatalf("re-enrolled %+v", re)
		}
		stopped := planData[collection.EnrollmentJSON](t, pe.must(pe.Owner, 200, "DELETE", enrollPath(charge, p.ID), nil))
		if stopped.Status != "stopped" || *stopped.StoppedReason != "unenrolled" || stopped.NextStepID != nil || !stopped.StoppedAt.Equal(utcAt(time.March, 9, 12)) {
			t.Fatalf("unenrolled %+v", stopped)
		}
		pe.must(pe.Owner, 200, "DELETE", enrollPath(charge, p.ID), nil)
		if got := planEvents(t, db, pe.Mine.ID); len(got) != 4 || got[3] != "dunning.enrollment.stopped" {
			t.Fatalf("events %v", got)
		}

		// Who may enroll what.
		draft := pe.createPlan("Rascunho")
		pe.addStep(draft.ID, emailStep(0, "09:00"))
		paid := seedCharge(t, db, chargeSeed{OrgID: pe.Mine.ID, DebtorID: debtor, Due: "2026-03-10", Status: "paid", NoFees: true})
		theirDebtor := seedDebtor(t, db, debtorSeed{OrgID: pe.Theirs.ID, Name: "Outro"})
		theirs := seedCharge(t, db, chargeSeed{OrgID: pe.Theirs.ID, DebtorID: theirDebtor, Due: "2026-03-10", NoFees: true})
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PUT", enrollPath(charge, draft.ID), nil, "only an active collection plan takes charges", "draft")
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PUT", enrollPath(paid, p.ID), nil, "A paid charge cannot be enrolled")
		pe.wantError(pe.Owner, 404, "NOT_FOUND", "PUT", enrollPath(theirs, p.ID), nil, "charge")
		pe.wantError(pe.Other, 404, "NOT_FOUND", "PUT", enrollPath(charge, p.ID), nil)
		pe.wantError(pe.Other, 404, "NOT_FOUND", "DELETE", enrollPath(charge, p.ID), nil)
		pe.wantError(pe.Other, 404, "NOT_FOUND", "POST", enrollPath(charge, p.ID)+"/preview", nil)
		pe.wantError(pe.Owner, 404, "NOT_FOUND", "DELETE", enrollPath(paid, p.ID), nil, "not enrolled")
		pe.wantError(pe.Member, 403, "FORBIDDEN", "PUT", enrollPath(charge, p.ID), nil)
		text, isErr := pe.Call(pe.Owner, "dunning_charges_enroll", map[string]any{"id": charge, "cp_id": p.ID})
		if !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("enroll through MCP: %s", text)
		}

		// Enrolled late: every step is past, nothing is ever sent and the
		// enrollment completes at once.
		old := seedCharge(t, db, chargeSeed{OrgID: pe.Mine.ID, DebtorID: debtor, Due: "2026-01-10", Status: "overdue", NoFees: true})
		late := planData[collection.EnrollmentAnswerJSON](t, pe.must(pe.Owner, 201, "PUT", enrollPath(old, p.ID), nil))
		if late.Status != "completed" || late.SkippedPast != 4 || len(late.SkippedPastSteps) != 4 || late.NextStep != nil || late.NextRunAt != nil {
			t.Fatalf("late %+v", late)
		}

		// The charge leaves collection: the hook stops its enrollments in
		// the caller's transaction — rolled back with it, committed with it.
		pe.must(pe.Owner, 200, "PUT", enrollPath(charge, p.ID), nil)
		closeCharge := func(fail bool) error {
			return db.WithTx(ctx, func(tx *store.Tx) error {
				c, err := ledger.GetCharge(ctx, tx, pe.Mine.ID, charge)
				if err != nil {
					return err
				}
				c.Status = lifecycle.ChargePaid
				if _, err := tx.Exec(ctx, `UPDATE dunning_charges SET status = 'paid', open_amount_cents = 0 WHERE id = ?`, charge); err != nil {
					return err
				}
				if err := pe.svc.OnChargeClosed(ctx, tx, c, lifecycle.StopPaid); err != nil {
					return err
				}
				if fail {
					return errors.New("the payment failed later")
				}
				return nil
			})
		}
		if err := closeCharge(true); err == nil {
			t.Fatal("the failing close committed")
		}
		if e, _ := collection.GetEnrollment(ctx, db, pe.Mine.ID, charge, p.ID, ""); e.Status != "active" || e.NextStepID == nil {
			t.Fatalf("rolled back: %+v", e)
		}
		if err := closeCharge(false); err != nil {
			t.Fatal(err)
		}
		if e, _ := collection.GetEnrollment(ctx, db, pe.Mine.ID, charge, p.ID, ""); e.Status != "stopped" || *e.StoppedReason != "paid" || e.NextRunAt != nil {
			t.Fatalf("stopped by payment: %+v", e)
		}
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PUT", enrollPath(charge, p.ID), nil, "A paid charge cannot be enrolled")

		// Archiving the plan stops the charges running through it.
		other := seedCharge(t, db, chargeSeed{OrgID: pe.Mine.ID, DebtorID: debtor, Due: "2026-03-30", NoFees: true})
		pe.must(pe.Owner, 201, "PUT", enrollPath(other, p.ID), nil)
		pe.must(pe.Owner, 200, "POST", "/v1/collection-plans/"+p.ID+"/archive", nil)
		if e, _ := collection.GetEnrollment(ctx, db, pe.Mine.ID, other, p.ID, ""); e.Status != "stopped" || *e.StoppedReason != "plan_archived" {
			t.Fatalf("stopped by archive: %+v", e)
		}
		got := planEvents(t, db, pe.Mine.ID)
		want := "started,completed,started,stopped,started,completed,started,stopped,started,stopped"
		short := make([]string, len(got))
		for i, g := range got {
			short[i] = strings.TrimPrefix(g, "dunning.enrollment.")
		}
		if strings.Join(short, ",") != want {
			t.Fatalf("events %v, want %s", short, want)
		}
		if n := planCount(t, db, `SELECT COUNT(*) FROM system_events WHERE organization_id = ?`, pe.Theirs.ID); n != 0 {
			t.Fatalf("%d events for the other organization", n)
		}
	})
}

// TestPlansConfirmedThroughMCP: the destructive tools ask a 2026 client
// with form elicitation, naming what will happen, run once on accept, and
// refuse a replayed confirmation.
func TestPlansConfirmedThroughMCP(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe := newEnv(t, db, envOptions{start: utcAt(time.March, 8, 15)})
		p, _ := pe.reguaPlan("Régua")
		debtor := seedDebtor(t, db, debtorSeed{OrgID: pe.Mine.ID, Name: "Maria da Silva", Emails: []string{"maria@example.com"}, Phones: []string{"+5511987654321"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: pe.Mine.ID, DebtorID: debtor, ExternalID: "fat-1", Due: "2026-03-10", NoFees: true})
		args := map[string]any{"id": "fat-1", "cp_id": p.ID}

		msg, text, isErr, state := pe.planConfirmedCall(pe.Owner, "dunning_charges_enroll", args)
		if msg != "Enroll charge 'fat-1' (R$ 1.000,00, due 10/03/2026) in collection plan 'Régua'? Its debtor will be contacted automatically: "+
			"3 steps to come, the first by sms on 10/03/2026 09:00 (America/Sao_Paulo); 1 step already past will not be sent." {
			t.Fatalf("message %q", msg)
		}
		if isErr || !strings.Contains(text, `"status": "active"`) || !strings.Contains(text, `"skipped_past": 1`) {
			t.Fatalf("enrolled: %v %s", isErr, text)
		}
		if text, isErr := pe.planRetry(pe.Owner, "dunning_charges_enroll", args, state); !isErr || !strings.Contains(text, "already used") {
			t.Fatalf("replayed confirmation: %v %s", isErr, text)
		}
		msg, _, isErr, _ = pe.planConfirmedCall(pe.Owner, "dunning_plans_archive", map[string]any{"id": p.ID})
		if isErr || msg != "Archive collection plan 'Régua'? The 1 charge running through it stops (no further step is sent), and it takes no new charges. This cannot be undone." {
			t.Fatalf("archive: %v %q", isErr, msg)
		}
		if e, _ := collection.GetEnrollment(context.Background(), db, pe.Mine.ID, charge, p.ID, ""); e.Status != "stopped" || *e.StoppedReason != "plan_archived" {
			t.Fatalf("after archive %+v", e)
		}
		// A target another organization owns is its 404, asked nothing.
		raw := pe.RPC(pe.Other, "tools/call", map[string]any{"name": "dunning_charges_unenroll", "arguments": args, "_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "plans-test", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
		}})
		if strings.Contains(raw, "input_required") || !strings.Contains(raw, `\"code\": \"NOT_FOUND\"`) || !strings.Contains(raw, `"isError":true`) {
			t.Fatalf("their unenroll: %s", raw)
		}
	})
}

// TestCollectionThroughTheCharge: the whole path on the core's routes — a
// debtor, a charge due in three days, a plan of three steps (D−3 e-mail,
// D0 SMS, D+3 WhatsApp), the preview, the enrollment — and a payment
// that clears the charge stops its enrollment in the payment's own
// transaction, as cancelling and archiving a charge do.
func TestCollectionThroughTheCharge(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		// Tuesday 10 March 2026, 12:00 in São Paulo.
		pe := newEnv(t, db, envOptions{start: utcAt(time.March, 10, 15)})
		pe.must(pe.Owner, 201, "PUT", "/v1/debtors/maria", map[string]any{"name": "Maria da Silva", "document": "529.982.247-25",
			"emails": []string{"maria@example.com"}, "phones": []string{"(11) 98765-4321"}})
		charge := func(ext string) string {
			out := planData[map[string]any](t, pe.must(pe.Owner, 201, "POST", "/v1/charges", map[string]any{"debtor_id": "maria", "external_id": ext,
				"amount": 150, "due_date": "2026-03-13", "fine_percent": 2, "interest_percent": 1, "payment_link": "https://pague.example/" + ext}))
			return out["id"].(string)
		}
		first := charge("fat-1")
		p := pe.createPlan("Régua de 3 passos")
		pe.addStep(p.ID, map[string]any{"offset_days": -3, "send_time": "14:00", "channel": "email", "subject": "Sua fatura vence em {{charge.due_date}}",
			"template": "Olá {{debtor.name}}, sua fatura de {{charge.amount}} vence em {{charge.due_date}}: {{payment_link}}"})
		pe.addStep(p.ID, map[string]any{"offset_days": 0, "send_time": "10:00", "channel": "sms", "template": "Vence hoje: {{charge.amount}} {{payment_link}}"})
		pe.addStep(p.ID, map[string]any{"offset_days": 3, "send_time": "10:00", "channel": "whatsapp", "template": "Em atraso: {{charge.updated_amount}} {{payment_link}}"})
		pe.activate(p.ID)

		pv := planData[collection.PreviewJSON](t, pe.must(pe.Owner, 200, "POST", enrollPath("fat-1", p.ID)+"/preview", nil))
		if pv.Summary.Send != 3 || *pv.Steps[0].To != "maria@example.com" || *pv.Steps[1].To != "+5511987654321" || *pv.Steps[2].To != "+5511987654321" ||
			*pv.Steps[0].Message != "Olá Maria da Silva, sua fatura de R$ 150,00 vence em 13/03/2026: https://pague.example/fat-1" ||
			*pv.Steps[2].Message != "Em atraso: R$ 153,15 https://pague.example/fat-1" || !pv.Steps[2].RunAt.Equal(utcAt(time.March, 16, 13)) {
			t.Fatalf("preview %+v", pv)
		}
		en := planData[collection.EnrollmentAnswerJSON](t, pe.must(pe.Owner, 201, "PUT", enrollPath("fat-1", p.ID), nil))
		if en.SkippedPast != 0 || !en.NextRunAt.Equal(utcAt(time.March, 10, 17)) || len(en.UpcomingSteps) != 3 {
			t.Fatalf("enrolled %+v", en)
		}

		// A new due date moves the steps with it: D−3 of the 20th at 14:00
		// São Paulo is the 17th at 17:00 UTC.
		pe.must(pe.Owner, 200, "PATCH", "/v1/charges/fat-1", map[string]any{"due_date": "2026-03-20"})
		if e, _ := collection.GetEnrollment(ctx, db, pe.Mine.ID, first, p.ID, ""); e.NextRunAt == nil || !e.NextRunAt.Equal(utcAt(time.March, 17, 17)) {
			t.Fatalf("after moving the due date %+v", e)
		}
		pe.must(pe.Owner, 200, "PATCH", "/v1/charges/fat-1", map[string]any{"due_date": "2026-03-13"})

		// A partial payment keeps collecting; the one that clears it stops.
		pe.must(pe.Owner, 201, "POST", "/v1/charges/fat-1/payments", map[string]any{"amount": 50, "method": "pix"})
		if e, _ := collection.GetEnrollment(ctx, db, pe.Mine.ID, first, p.ID, ""); e.Status != "active" {
			t.Fatalf("after a partial payment %+v", e)
		}
		pe.must(pe.Owner, 201, "POST", "/v1/charges/fat-1/payments", map[string]any{"amount": 100, "method": "pix"})
		e, _ := collection.GetEnrollment(ctx, db, pe.Mine.ID, first, p.ID, "")
		if e.Status != "stopped" || *e.StoppedReason != "paid" || e.NextStepID != nil || e.NextRunAt != nil {
			t.Fatalf("after the payment %+v", e)
		}
		got := planEvents(t, db, pe.Mine.ID)
		if n := len(got); n < 2 || got[n-2] != "dunning.charge.paid" || got[n-1] != "dunning.enrollment.stopped" {
			t.Fatalf("events %v", got)
		}
		detail := planData[map[string]any](t, pe.must(pe.Owner, 200, "GET", "/v1/charges/fat-1", nil))
		if ens := detail["enrollments"].([]any); len(ens) != 1 || ens[0].(map[string]any)["status"] != "stopped" {
			t.Fatalf("charge detail enrollments %v", detail["enrollments"])
		}

		// Cancelling and archiving stop collection too.
		for _, tc := range []struct{ ext, op, reason string }{{"fat-2", "cancel", "canceled"}, {"fat-3", "archive", "archived"}} {
			id := charge(tc.ext)
			pe.must(pe.Owner, 201, "PUT", enrollPath(id, p.ID), nil)
			pe.must(pe.Owner, 200, "POST", "/v1/charges/"+tc.ext+"/"+tc.op, nil)
			if e, _ := collection.GetEnrollment(ctx, db, pe.Mine.ID, id, p.ID, ""); e.Status != "stopped" || *e.StoppedReason != tc.reason {
				t.Fatalf("%s: %+v", tc.op, e)
			}
			pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PUT", enrollPath(id, p.ID), nil, "cannot be enrolled")
		}
	})
}
