package dunning

import (
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

var planT0 = time.Date(2026, time.March, 2, 12, 0, 0, 0, time.UTC)

// emailStep is a valid e-mail step body at offset days.
func emailStep(offset int, at string) map[string]any {
	return map[string]any{"offset_days": offset, "send_time": at, "channel": "email", "subject": "Fatura {{charge.due_date}}",
		"template": "Olá {{debtor.name}}, sua fatura de {{charge.updated_amount}} vence em {{charge.due_date}}."}
}

// TestCollectionPlans: every plan route on both engines — create as a
// draft, list with its pages and filters, get with steps, update, the
// state machine through dunning/lifecycle (an illegal change is
// UNPROCESSABLE naming both states), archive, delete only while draft —
// roles, and another organization's ids answering NOT_FOUND.
func TestCollectionPlans(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe := newEnv(t, db, envOptions{start: planT0})

		p := pe.createPlan("Régua padrão")
		if p.Status != "draft" || p.Name != "Régua padrão" || len(p.Steps) != 0 || p.ExternalID != nil || !p.CreatedAt.Equal(planT0) {
			t.Fatalf("created %+v", p)
		}
		other := planData[collection.PlanDetailJSON](t, pe.must(pe.Owner, 201, "POST", "/v1/collection-plans",
			map[string]any{"name": "Empresas", "external_id": "pj", "description": "Clientes PJ"}))
		pe.wantError(pe.Owner, 409, "CONFLICT", "POST", "/v1/collection-plans", map[string]any{"name": "Outra", "external_id": "pj"}, "external_id")
		e := pe.wantError(pe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/collection-plans", map[string]any{"name": "x", "colour": "red"})
		if len(e.Details) != 1 || e.Details[0].Field != "colour" {
			t.Fatalf("details %+v", e.Details)
		}
		e = pe.wantError(pe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/collection-plans", map[string]any{"name": "  ", "external_id": " "})
		if len(e.Details) != 2 || e.Details[0].Field != "name" || e.Details[1].Field != "external_id" {
			t.Fatalf("details %+v", e.Details)
		}

		// Listings: numbered pages, filters, strict reads.
		pg := list[collection.PlanJSON](t, pe.Env, "/v1/collection-plans?per_page=1")
		if len(pg.Data) != 1 || pg.Data[0].ID != p.ID || pg.Meta.Total != 2 || pg.Meta.TotalPages != 2 || pg.Meta.PerPage != 1 {
			t.Fatalf("page 1: %+v", pg)
		}
		if pg = list[collection.PlanJSON](t, pe.Env, "/v1/collection-plans?page=2&per_page=1"); len(pg.Data) != 1 || pg.Data[0].ID != other.ID {
			t.Fatalf("page 2: %+v", pg)
		}
		if pg = list[collection.PlanJSON](t, pe.Env, "/v1/collection-plans?q=pj"); len(pg.Data) != 1 || pg.Data[0].ID != other.ID {
			t.Fatalf("q=pj: %+v", pg)
		}
		if pg = list[collection.PlanJSON](t, pe.Env, "/v1/collection-plans?status=active"); len(pg.Data) != 0 || pg.Meta.Total != 0 {
			t.Fatalf("status=active: %+v", pg)
		}
		pe.wantError(pe.Owner, 422, "VALIDATION_ERROR", "GET", "/v1/collection-plans?sttus=draft", nil)
		got := planData[collection.PlanDetailJSON](t, pe.must(pe.Viewer, 200, "GET", "/v1/collection-plans/pj", nil))
		if got.ID != other.ID || got.Description != "Clientes PJ" {
			t.Fatalf("get by external_id: %+v", got)
		}

		// The state machine.
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"status": "paused"},
			"a draft collection plan cannot become paused")
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"status": "active"},
			"without an active step")
		pe.addStep(p.ID, emailStep(-3, "09:00"))
		pe.clock.Set(planT0.Add(time.Hour))
		upd := planData[collection.PlanDetailJSON](t, pe.must(pe.Member, 200, "PATCH", "/v1/collection-plans/"+p.ID,
			map[string]any{"status": "active", "name": "Régua PF", "description": "Pessoas físicas"}))
		if upd.Status != "active" || upd.Name != "Régua PF" || upd.Description != "Pessoas físicas" || len(upd.Steps) != 1 ||
			!upd.UpdatedAt.Equal(planT0.Add(time.Hour)) {
			t.Fatalf("activated %+v", upd)
		}
		pe.must(pe.Member, 200, "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"status": "active"}) // no change
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"status": "draft"},
			"an active collection plan cannot become draft")
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"status": "archived"},
			"dunning_plans_archive")
		pe.must(pe.Member, 200, "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"status": "paused"})
		pe.must(pe.Member, 200, "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"status": "active"})
		pe.wantError(pe.Owner, 409, "CONFLICT", "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"external_id": "pj"})

		// Delete only while draft; archive only once active.
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "DELETE", "/v1/collection-plans/"+p.ID, nil,
			"an active collection plan cannot be deleted; only a draft can")
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "POST", "/v1/collection-plans/"+other.ID+"/archive", nil,
			"a draft collection plan cannot become archived", "delete it instead")
		arch := planData[collection.PlanDetailJSON](t, pe.must(pe.Owner, 200, "POST", "/v1/collection-plans/"+p.ID+"/archive", nil))
		if arch.Status != "archived" {
			t.Fatalf("archived %+v", arch)
		}
		pe.must(pe.Owner, 200, "POST", "/v1/collection-plans/"+p.ID+"/archive", nil) // again: no change
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PATCH", "/v1/collection-plans/"+p.ID, map[string]any{"name": "x"}, "archived")
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "POST", "/v1/collection-plans/"+p.ID+"/steps", emailStep(0, "09:00"), "archived")
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "DELETE", "/v1/collection-plans/"+p.ID, nil,
			"an archived collection plan cannot be deleted")
		pe.addStep(other.ID, emailStep(0, "10:00"))
		pe.must(pe.Owner, 204, "DELETE", "/v1/collection-plans/"+other.ID, nil)
		pe.wantError(pe.Owner, 404, "NOT_FOUND", "GET", "/v1/collection-plans/"+other.ID, nil)
		if pg = list[collection.PlanJSON](t, pe.Env, "/v1/collection-plans"); pg.Meta.Total != 1 {
			t.Fatalf("after delete: %+v", pg)
		}
		// The external_id of a deleted plan is free again.
		pe.must(pe.Owner, 201, "POST", "/v1/collection-plans", map[string]any{"name": "PJ 2", "external_id": "pj"})

		// Roles: viewers read, members write, admins archive and delete.
		pe.wantError(pe.Viewer, 403, "FORBIDDEN", "POST", "/v1/collection-plans", map[string]any{"name": "v"})
		pe.wantError(pe.Member, 403, "FORBIDDEN", "DELETE", "/v1/collection-plans/pj", nil)
		pe.wantError(pe.Member, 403, "FORBIDDEN", "POST", "/v1/collection-plans/pj/archive", nil)

		// Another organization sees none of it.
		for _, r := range []struct{ method, path string }{
			{"GET", "/v1/collection-plans/" + p.ID}, {"PATCH", "/v1/collection-plans/" + p.ID},
			{"POST", "/v1/collection-plans/" + p.ID + "/archive"}, {"DELETE", "/v1/collection-plans/pj"},
			{"POST", "/v1/collection-plans/pj/steps"},
		} {
			var body any
			switch r.method {
			case "PATCH":
				body = map[string]any{"name": "mine now"}
			case "POST":
				if strings.HasSuffix(r.path, "/steps") {
					body = emailStep(0, "09:00")
				}
			}
			pe.wantError(pe.Other, 404, "NOT_FOUND", r.method, r.path, body)
		}
		if pg := list[collection.PlanJSON](t, pe.Env, "/v1/collection-plans"); pg.Meta.Total != 2 {
			t.Fatalf("mine: %+v", pg)
		}
		code, body := pe.Do(pe.Other, "GET", "/v1/collection-plans", nil)
		if code != 200 || !strings.Contains(body, `"total":0`) {
			t.Fatalf("theirs: %d %s", code, body)
		}

		// A write repeated with its X-Idempotency-Key is answered once.
		tok := pe.Token(pe.Owner, "api")
		c1, _, b1 := pe.DoFull(tok, "POST", "/v1/collection-plans", map[string]any{"name": "Idem"}, "X-Idempotency-Key", "plan-1")
		c2, h2, b2 := pe.DoFull(tok, "POST", "/v1/collection-plans", map[string]any{"name": "Idem"}, "X-Idempotency-Key", "plan-1")
		if c1 != 201 || c2 != 201 || b1 != b2 || h2.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %d %q\n%s\n%s", c1, c2, h2.Get("Idempotent-Replayed"), b1, b2)
		}
		if c3, _, b3 := pe.DoFull(tok, "POST", "/v1/collection-plans", map[string]any{"name": "Other"}, "X-Idempotency-Key", "plan-1"); c3 != 409 ||
			planErrorOf(t, b3).Code != "CONFLICT" {
			t.Fatalf("key reused with other arguments: %d %s", c3, b3)
		}
		if pg := list[collection.PlanJSON](t, pe.Env, "/v1/collection-plans?q=idem"); pg.Meta.Total != 1 {
			t.Fatalf("replayed create stored twice: %+v", pg)
		}

		// Through MCP a destructive tool needs a client that can confirm.
		text, isErr := pe.Call(pe.Owner, "dunning_plans_delete", map[string]any{"id": "pj"})
		if !isErr || !strings.Contains(text, "confirmation_required") {
			t.Fatalf("delete through MCP: %v %s", isErr, text)
		}
		text, isErr = pe.Call(pe.Owner, "dunning_plans_get", map[string]any{"id": "pj"})
		if isErr || !strings.Contains(text, `"name": "PJ 2"`) {
			t.Fatalf("get through MCP: %v %s", isErr, text)
		}
	})
}

// TestPlanSteps: steps are validated when saved — an unknown variable is
// VALIDATION_ERROR naming it with its line and column, every problem its
// own detail — and updated, disabled and deleted; the last active step of
// an active plan stays.
func TestPlanSteps(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe := newEnv(t, db, envOptions{start: planT0})
		p := pe.createPlan("Régua")
		path := "/v1/collection-plans/" + p.ID + "/steps"

		e := pe.wantError(pe.Owner, 422, "VALIDATION_ERROR", "POST", path, map[string]any{
			"offset_days": 3, "send_time": "09:00", "channel": "sms",
			"template": "Olá {{debtor.nome}},\npague {{ charge.amount }} até {{charge.vencimento}} {{payment_link",
		})
		want := []string{
			"template: line 1, column 5: unknown variable {{debtor.nome}} (did you mean {{debtor.name}}?)",
			"template: line 2, column 31: unknown variable {{charge.vencimento}}",
			"template: line 2, column 53: \"{{\" is not closed by \"}}\"",
		}
		var gotDetails []string
		for _, d := range e.Details {
			gotDetails = append(gotDetails, d.Field+": "+d.Message)
		}
		if strings.Join(gotDetails, "\n") != strings.Join(want, "\n") {
			t.Fatalf("details:\n%s\nwant:\n%s", strings.Join(gotDetails, "\n"), strings.Join(want, "\n"))
		}
		for _, tt := range []struct {
			name   string
			body   map[string]any
			fields string
		}{
			{"e-mail without subject", map[string]any{"offset_days": 0, "send_time": "09:00", "channel": "email", "template": "oi"}, "subject"},
			{"SMS with a subject", map[string]any{"offset_days": 0, "send_time": "09:00", "channel": "sms", "subject": "x", "template": "oi"}, "subject"},
			{"send time 9:30", map[string]any{"offset_days": 0, "send_time": "9:30", "channel": "sms", "template": "oi"}, "send_time"},
			{"unknown channel and action", map[string]any{"offset_days": 0, "send_time": "09:30", "channel": "fax", "action": "sue", "template": "oi"}, "action,channel"},
			{"offset beyond five years", map[string]any{"offset_days": 4000, "send_time": "09:30", "channel": "sms", "template": "oi"}, "offset_days"},
			{"subject with a bad variable", map[string]any{"offset_days": 0, "send_time": "09:30", "channel": "email", "subject": "{{x.y}}", "template": "oi"}, "subject"},
			{"SMS longer than six segments", map[string]any{"offset_days": 0, "send_time": "09:30", "channel": "sms", "template": strings.Repeat("ã", 403)}, "template"},
			{"missing offset", map[string]any{"send_time": "09:30", "channel": "sms", "template": "oi"}, "offset_days"},
		} {
			e := pe.wantError(pe.Owner, 422, "VALIDATION_ERROR", "POST", path, tt.body)
			var fields []string
			for _, d := range e.Details {
				fields = append(fields, d.Field)
			}
			if strings.Join(fields, ",") != tt.fields {
				t.Errorf("%s: fields %v (%+v), want %s", tt.name, fields, e.Details, tt.fields)
			}
		}

		st := pe.addStep(p.ID, emailStep(-3, "09:00"))
		if st.Action != "notify" || !st.BusinessDays || st.RequiresApproval || st.Status != "active" || st.Subject == nil ||
			strings.Join(variableNames(st), ",") != "charge.due_date,debtor.name,charge.updated_amount" {
			t.Fatalf("step %+v", st)
		}
		sms := pe.addStep(p.ID, map[string]any{"offset_days": 3, "send_time": "10:00", "channel": "sms", "action": "protest",
			"template": "{{debtor.name}}: título protestado", "requires_approval": true, "business_days": false})
		if sms.Action != "protest" || !sms.RequiresApproval || sms.BusinessDays {
			t.Fatalf("sms step %+v", sms)
		}

		// Update: e-mail → WhatsApp drops the subject; a bad template is
		// refused with its position.
		upd := planData[collection.StepJSON](t, pe.must(pe.Member, 200, "PATCH", path+"/"+st.ID, map[string]any{"channel": "whatsapp", "offset_days": -5}))
		if upd.Channel != "whatsapp" || upd.Subject != nil || upd.OffsetDays != -5 || upd.Template != st.Template {
			t.Fatalf("updated %+v", upd)
		}
		e = pe.wantError(pe.Owner, 422, "VALIDATION_ERROR", "PATCH", path+"/"+st.ID, map[string]any{"template": "{{debtor.name}} {{boleto}}"})
		if len(e.Details) != 1 || e.Details[0].Field != "template" || e.Details[0].Message != "line 1, column 17: unknown variable {{boleto}}" {
			t.Fatalf("details %+v", e.Details)
		}
		pe.wantError(pe.Owner, 422, "VALIDATION_ERROR", "PATCH", path+"/"+st.ID, map[string]any{"subject": "Oi"}, "invalid")
		pe.must(pe.Owner, 200, "PATCH", path+"/"+sms.ID, map[string]any{"status": "disabled"})
		got := planData[collection.PlanDetailJSON](t, pe.must(pe.Owner, 200, "GET", "/v1/collection-plans/"+p.ID, nil))
		if len(got.Steps) != 2 || got.Steps[0].ID != st.ID || got.Steps[1].Status != "disabled" || got.StepsCount != 2 {
			t.Fatalf("plan %+v", got)
		}

		// An active plan keeps an active step.
		pe.activate(p.ID)
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "PATCH", path+"/"+st.ID, map[string]any{"status": "disabled"}, "must keep an active step")
		pe.wantError(pe.Owner, 422, "UNPROCESSABLE", "DELETE", path+"/"+st.ID, nil, "must keep an active step")
		pe.wantError(pe.Member, 403, "FORBIDDEN", "DELETE", path+"/"+sms.ID, nil)
		pe.must(pe.Owner, 204, "DELETE", path+"/"+sms.ID, nil)
		pe.wantError(pe.Owner, 404, "NOT_FOUND", "DELETE", path+"/"+sms.ID, nil)
		pe.wantError(pe.Owner, 404, "NOT_FOUND", "PATCH", path+"/"+sms.ID, map[string]any{"offset_days": 1})

		// A step is found only under its own plan and organization.
		p2 := pe.createPlan("Outra")
		pe.wantError(pe.Owner, 404, "NOT_FOUND", "PATCH", "/v1/collection-plans/"+p2.ID+"/steps/"+st.ID, map[string]any{"offset_days": 1})
		pe.wantError(pe.Other, 404, "NOT_FOUND", "PATCH", path+"/"+st.ID, map[string]any{"offset_days": 1})
		pe.wantError(pe.Other, 404, "NOT_FOUND", "DELETE", path+"/"+st.ID, nil)
		pe.wantError(pe.Viewer, 403, "FORBIDDEN", "POST", path, emailStep(0, "09:00"))
	})
}

func variableNames(st collection.StepJSON) []string {
	out := make([]string, len(st.Variables))
	for i, v := range st.Variables {
		out[i] = string(v)
	}
	return out
}
