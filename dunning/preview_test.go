package dunning

import (
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestPreview: the calendar of a plan on a real charge — a step moved
// before the sending window opens, one landing on Carnival Monday moved
// to Ash Wednesday, one on Good Friday moved to Monday, one on an
// organization's closed day, one at night moved to the next morning —
// each with the reasons it moved; the address each channel would use or
// why it would be skipped (past, opted out, no e-mail, no mobile); the
// message rendered in Brazilian formats with the charge's updated amount
// on the day it runs; nothing sent or stored.
func TestPreview(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		// Wednesday 11 February 2026, 09:00 in São Paulo.
		pe := newEnv(t, db, envOptions{start: time.Date(2026, time.February, 11, 12, 0, 0, 0, time.UTC)})
		planSeedSettings(t, db, pe.Mine.ID, "20:00", "08:00", []string{"2026-02-20"})
		maria := seedDebtor(t, db, debtorSeed{OrgID: pe.Mine.ID, Name: "Maria da Silva", Emails: []string{"maria@example.com"}, Phones: []string{"+5511987654321"}})
		planSeedOptOut(t, db, pe.Mine.ID, maria, "whatsapp", "STOP reply")
		// Due Friday 13 February, the last business day before Carnival:
		// R$ 1.000,00 with a 2 % fine and 1 % a month.
		charge := seedCharge(t, db, chargeSeed{OrgID: pe.Mine.ID, DebtorID: maria, ExternalID: "fat-carnaval", Due: "2026-02-13", Amount: 100000,
			Fine: 20000, Interest: 10000, PaymentLink: "https://pague.example/c/1"})

		p := pe.createPlan("Régua") // a draft can be previewed
		pe.addStep(p.ID, map[string]any{"offset_days": -3, "send_time": "07:00", "channel": "email", "subject": "Sua fatura vence em {{charge.due_date}}",
			"template": "Olá {{debtor.name}}, sua fatura de {{charge.amount}} vence em {{charge.due_date}}."})
		sms := pe.addStep(p.ID, map[string]any{"offset_days": 3, "send_time": "09:00", "channel": "sms",
			"template": "{{debtor.name}}, sua fatura de {{charge.due_date}} está em atraso há {{charge.days_late}} dias: {{charge.updated_amount}}. Pague: {{payment_link}}"})
		pe.addStep(p.ID, map[string]any{"offset_days": 5, "send_time": "21:30", "channel": "whatsapp", "business_days": false,
			"template": "{{debtor.name}}, último aviso: {{charge.updated_amount}}"})
		pe.addStep(p.ID, map[string]any{"offset_days": 7, "send_time": "09:00", "channel": "email", "subject": "Aviso de {{organization.name}}",
			"template": "{{debtor.name}}, devido hoje: {{charge.updated_amount}} ({{charge.days_late}} dias)", "requires_approval": true})
		before := planCount(t, db, `SELECT COUNT(*) FROM system_events`) + planCount(t, db, `SELECT COUNT(*) FROM dunning_enrollments`)

		out := planData[collection.PreviewJSON](t, pe.must(pe.Viewer, 200, "POST", enrollPath("fat-carnaval", p.ID)+"/preview", nil))
		if out.Timezone != "America/Sao_Paulo" || out.Plan.Status != "draft" || out.Enrollment != nil || out.Charge.ID != charge ||
			out.Debtor.Name != "Maria da Silva" || len(out.Steps) != 4 {
			t.Fatalf("preview %+v", out)
		}
		type want struct {
			runAt   time.Time
			local   string
			moves   []string
			outcome string
			skip    string
			to      string
			subject string
			message string
			amount  string
		}
		wants := []want{
			{time.Date(2026, 2, 10, 11, 0, 0, 0, time.UTC), "2026-02-10T08:00:00-03:00",
				[]string{"07:00 is before the sending window opens at 08:00"}, "skip", "past", "maria@example.com",
				"Sua fatura vence em 13/02/2026", "Olá Maria da Silva, sua fatura de R$ 1.000,00 vence em 13/02/2026.", "1000"},
			// Carnival Monday (16) and Tuesday (17): Ash Wednesday, 5 days late:
			// fine R$ 20,00 + interest R$ 1.000,00 × 1 % × 5/30 = R$ 1,67.
			{time.Date(2026, 2, 18, 12, 0, 0, 0, time.UTC), "2026-02-18T09:00:00-03:00",
				[]string{"2026-02-16 is closed (Carnaval (segunda-feira)): moved to 2026-02-18"}, "send", "", "+5511987654321", "",
				"Maria da Silva, sua fatura de 13/02/2026 está em atraso há 5 dias: R$ 1.021,67. Pague: https://pague.example/c/1", "1021.67"},
			// Wednesday 18 at 21:30, calendar days: Thursday's opening.
			{time.Date(2026, 2, 19, 11, 0, 0, 0, time.UTC), "2026-02-19T08:00:00-03:00",
				[]string{"21:30 is not before the sending window closes at 20:00: moved to the next day's opening"}, "skip", "opted_out", "+5511987654321", "",
				"Maria da Silva, último aviso: R$ 1.022,00", "1022"},
			// Friday 20 is the organization's closed day: Monday 23.
			{time.Date(2026, 2, 23, 12, 0, 0, 0, time.UTC), "2026-02-23T09:00:00-03:00",
				[]string{"2026-02-20 is closed (closed day): moved to 2026-02-23"}, "send_after_approval", "", "maria@example.com", "Aviso de Mine",
				"Maria da Silva, devido hoje: R$ 1.023,33 (10 dias)", "1023.33"},
		}
		for i, w := range wants {
			s := out.Steps[i]
			skip := ""
			if s.SkipReason != nil {
				skip = *s.SkipReason
			}
			to, subject, message := "", "", ""
			if s.To != nil {
				to = *s.To
			}
			if s.Subject != nil {
				subject = *s.Subject
			}
			if s.Message != nil {
				message = *s.Message
			}
			amount, _ := s.Amounts.UpdatedAmount.MarshalJSON()
			if !s.RunAt.Equal(w.runAt) || s.RunAtLocal != w.local || strings.Join(s.Moves, "|") != strings.Join(w.moves, "|") || s.Outcome != w.outcome ||
				skip != w.skip || to != w.to || subject != w.subject || message != w.message || string(amount) != w.amount || s.Position != i+1 {
				t.Errorf("step %d:\n got %+v (skip %q, to %q, subject %q, message %q, amount %s)\nwant %+v", i+1, s, skip, to, subject, message, amount, w)
			}
		}
		if !strings.Contains(*out.Steps[2].SkipDetail, "opted out of whatsapp on 2026-01-20 (STOP reply)") {
			t.Errorf("opt-out detail %q", *out.Steps[2].SkipDetail)
		}
		if l := out.Steps[1].Length; l == nil || l.Encoding != "UCS-2" || l.Segments != 2 || !l.Fits {
			t.Errorf("SMS length %+v", l)
		}
		if out.Summary.Steps != 4 || out.Summary.Send != 1 || out.Summary.SendAfterApproval != 1 || out.Summary.Skip != 2 ||
			!out.Summary.NextRunAt.Equal(wants[1].runAt) {
			t.Errorf("summary %+v", out.Summary)
		}

		// Good Friday, and a debtor with no e-mail and only a fixed line.
		joao := seedDebtor(t, db, debtorSeed{OrgID: pe.Mine.ID, Name: "João", Phones: []string{"+551133334444"}})
		easter := seedCharge(t, db, chargeSeed{OrgID: pe.Mine.ID, DebtorID: joao, Due: "2026-03-31", NoFees: true})
		out = planData[collection.PreviewJSON](t, pe.must(pe.Owner, 200, "POST", enrollPath(easter, p.ID)+"/preview", nil))
		// The WhatsApp step (Sunday 5 April at 21:30, calendar days) now
		// runs on Monday's opening, before the SMS moved from Good Friday
		// to Monday 09:00: the calendar's order is the instants'.
		if s := out.Steps[2]; s.StepID != sms.ID || !s.RunAt.Equal(time.Date(2026, 4, 6, 12, 0, 0, 0, time.UTC)) ||
			strings.Join(s.Moves, "|") != "2026-04-03 is closed (Sexta-feira Santa): moved to 2026-04-06" ||
			*s.SkipReason != "no_mobile_phone" || s.To != nil || *s.RenderError != "no value for {{payment_link}}" {
			t.Errorf("Good Friday step %+v", s)
		}
		if s := out.Steps[0]; *s.SkipReason != "no_email" || s.Outcome != "skip" {
			t.Errorf("no e-mail step %+v", s)
		}
		if s := out.Steps[1]; s.OffsetDays != 5 || !s.RunAt.Equal(time.Date(2026, 4, 6, 11, 0, 0, 0, time.UTC)) || s.SkipReason != nil ||
			*s.To != "+551133334444" || s.Outcome != "send" {
			t.Errorf("WhatsApp to a fixed line %+v", s)
		}

		// Nothing was sent or stored; the tool is a read.
		after := planCount(t, db, `SELECT COUNT(*) FROM system_events`) + planCount(t, db, `SELECT COUNT(*) FROM dunning_enrollments`)
		if after != before || planCount(t, db, `SELECT COUNT(*) FROM dunning_notifications`) != 0 {
			t.Fatalf("the preview stored something: %d → %d", before, after)
		}
		text, isErr := pe.Call(pe.Viewer, "dunning_charges_preview", map[string]any{"id": "fat-carnaval", "cp_id": p.ID})
		if isErr || !strings.Contains(text, `"skip_reason": "opted_out"`) || !strings.Contains(text, "R$ 1.021,67") {
			t.Fatalf("preview through MCP: %v %s", isErr, text)
		}

		// Enrolled, the preview shows the enrollment and what it ran.
		pe.activate(p.ID)
		pe.must(pe.Owner, 201, "PUT", enrollPath(charge, p.ID), nil)
		out = planData[collection.PreviewJSON](t, pe.must(pe.Owner, 200, "POST", enrollPath(charge, p.ID)+"/preview", nil))
		if out.Enrollment == nil || out.Enrollment.Status != "active" || *out.Enrollment.NextStepID != sms.ID || out.Enrollment.SkippedPast != 1 {
			t.Fatalf("enrolled preview %+v", out.Enrollment)
		}
		pe.wantError(pe.Owner, 404, "NOT_FOUND", "POST", enrollPath(charge, "no-such-plan")+"/preview", nil, "collection plan")
		pe.wantError(pe.Owner, 404, "NOT_FOUND", "POST", enrollPath("no-such-charge", p.ID)+"/preview", nil, "charge")
	})
}
