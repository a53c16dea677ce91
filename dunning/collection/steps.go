package collection

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/msgtemplate"
	"github.com/kobana/kobana-mcp/dunning/schedule"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// maxStepsPerPlan bounds a plan: every enrollment computes the whole
// calendar of its plan, and no real régua has more than a few dozen steps.
const maxStepsPerPlan = 100

// StepJSON is a step as the API shows it. Variables are the template's
// (and subject's) variables in order of first use: what every charge
// enrolled must be able to fill in.
type StepJSON struct {
	ID               string                 `json:"id"`
	PlanID           string                 `json:"plan_id"`
	OffsetDays       int                    `json:"offset_days"`
	SendTime         string                 `json:"send_time"`
	Channel          string                 `json:"channel"`
	Action           string                 `json:"action"`
	Subject          *string                `json:"subject"`
	Template         string                 `json:"template"`
	Variables        []msgtemplate.Variable `json:"variables"`
	RequiresApproval bool                   `json:"requires_approval"`
	BusinessDays     bool                   `json:"business_days"`
	Status           string                 `json:"status"`
	CreatedAt        time.Time              `json:"created_at"`
	UpdatedAt        time.Time              `json:"updated_at"`
}

// ShowStep is a step as the API shows it, with the variables its subject
// and template use, in order of first use.
func ShowStep(st StepRecord) StepJSON {
	vars := []msgtemplate.Variable{}
	seen := map[msgtemplate.Variable]bool{}
	texts := []string{st.Template}
	if st.Subject != nil {
		texts = append([]string{*st.Subject}, texts...)
	}
	for _, text := range texts {
		if t, err := msgtemplate.Parse(text); err == nil {
			for _, v := range t.Variables() {
				if !seen[v] {
					seen[v] = true
					vars = append(vars, v)
				}
			}
		}
	}
	return StepJSON{ID: st.ID, PlanID: st.PlanID, OffsetDays: st.OffsetDays, SendTime: st.SendTime, Channel: st.Channel,
		Action: st.Action, Subject: st.Subject, Template: st.Template, Variables: vars, RequiresApproval: st.RequiresApproval != 0,
		BusinessDays: st.BusinessDays != 0, Status: st.Status, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt}
}

type createStepIn struct {
	ID               string  `json:"id" in:"path" maxLength:"255" jsonschema:"The collection plan's id or external_id."`
	OffsetDays       int     `json:"offset_days" minimum:"-1830" maximum:"1830" jsonschema:"Days from the charge's due date: -5 is five days before, 0 the due date, 3 three days after."`
	SendTime         string  `json:"send_time" maxLength:"5" jsonschema:"The local time of day the step runs, HH:MM in the organization's time zone; moved out of the quiet hours."`
	Channel          string  `json:"channel" enum:"email,sms,whatsapp" jsonschema:"How the debtor is reached."`
	Action           string  `json:"action,omitempty" enum:"notify,report_credit_bureau,protest,offer_agreement" jsonschema:"What the step does (default notify: send the message). report_credit_bureau, protest and offer_agreement always wait for a person's approval, then run through the rules of dunning_charges_report_credit_bureau, dunning_charges_protest and dunning_agreements_create."`
	Subject          string  `json:"subject,omitempty" maxLength:"200" jsonschema:"The e-mail's subject, one line, a template like the message; required for e-mail, refused for other channels."`
	Template         string  `json:"template" minLength:"1" maxLength:"65536" jsonschema:"The message, text with variables in double braces ({{debtor.name}}, {{charge.updated_amount}}, {{charge.due_date}}, {{payment_link}} …); an unknown variable is VALIDATION_ERROR naming it with its line and column."`
	RequiresApproval *bool   `json:"requires_approval,omitempty" jsonschema:"When true each run of the step waits for a person to approve it (default false)."`
	BusinessDays     *bool   `json:"business_days,omitempty" jsonschema:"When true (default) a step landing on a weekend, a bank holiday or one of the organization's closed days moves to the next business day."`
	Status           *string `json:"status,omitempty" enum:"active,disabled" jsonschema:"active (default) runs; disabled stays in the plan without running."`
}

type updateStepIn struct {
	ID               string  `json:"id" in:"path" maxLength:"255" jsonschema:"The collection plan's id or external_id."`
	StepID           string  `json:"step_id" in:"path" maxLength:"255" jsonschema:"The step's id."`
	OffsetDays       *int    `json:"offset_days,omitempty" minimum:"-1830" maximum:"1830" jsonschema:"Days from the charge's due date."`
	SendTime         *string `json:"send_time,omitempty" maxLength:"5" jsonschema:"The local time of day, HH:MM."`
	Channel          *string `json:"channel,omitempty" enum:"email,sms,whatsapp" jsonschema:"How the debtor is reached; a step that leaves e-mail loses its subject unless one is given."`
	Action           *string `json:"action,omitempty" enum:"notify,report_credit_bureau,protest,offer_agreement" jsonschema:"What the step does."`
	Subject          *string `json:"subject,omitempty" maxLength:"200" jsonschema:"The e-mail's subject (a template)."`
	Template         *string `json:"template,omitempty" minLength:"1" maxLength:"65536" jsonschema:"The message (a template, validated when saved)."`
	RequiresApproval *bool   `json:"requires_approval,omitempty" jsonschema:"Whether each run waits for a person's approval."`
	BusinessDays     *bool   `json:"business_days,omitempty" jsonschema:"Whether a step on a closed day moves to the next business day."`
	Status           *string `json:"status,omitempty" enum:"active,disabled" jsonschema:"active runs; disabled stays in the plan without running."`
}

type stepRefIn struct {
	ID     string `json:"id" in:"path" maxLength:"255" jsonschema:"The collection plan's id or external_id."`
	StepID string `json:"step_id" in:"path" maxLength:"255" jsonschema:"The step's id."`
}

func stepErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return rest.NotFound("step")
	}
	return planErr(err)
}

func registerSteps(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_plan_steps_create", Method: "POST", Path: "/collection-plans/{id}/steps", Tags: []string{"collection plans"},
		Title: "Add a step to a collection plan",
		Summary: "Adds a step to a collection plan: the day relative to the due date, the send time, the channel, the action, the message " +
			"template (validated now) and whether it needs approval or moves to business days. Charges already running through the plan are rescheduled.",
		Requires: PlansWrite, Annotations: restkit.Write(false),
	}, s.planStepsCreate)
	rest.Handle(api, rest.Operation{
		ID: "dunning_plan_steps_update", Method: "PATCH", Path: "/collection-plans/{id}/steps/{step_id}", Tags: []string{"collection plans"},
		Title:    "Update a step of a collection plan",
		Summary:  "Changes the given fields of a step (validated as on creation); charges running through the plan are rescheduled.",
		Requires: PlansWrite, Annotations: restkit.Write(false),
	}, s.planStepsUpdate)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_plan_steps_delete", Method: "DELETE", Path: "/collection-plans/{id}/steps/{step_id}", Tags: []string{"collection plans"},
		Title:       "Delete a step of a collection plan",
		Summary:     "Deletes a step from a collection plan: no charge meets it any more, and charges running through the plan are rescheduled. The last active step of an active plan cannot be deleted (pause or archive the plan instead).",
		Description: "Destructive: it cannot be undone.",
		Requires:    plansManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describePlanStepsDelete, s.planStepsDelete)
}

// planStepsCreate answers dunning_plan_steps_create.
func (s *Service) planStepsCreate(ctx context.Context, in *createStepIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Clock()
	st := StepRecord{ID: store.NewID(), OrganizationID: t.OrgID, OffsetDays: in.OffsetDays, SendTime: in.SendTime, Channel: in.Channel,
		Action: in.Action, Template: in.Template, BusinessDays: 1, Status: stepActive, CreatedAt: now, UpdatedAt: now}
	if st.Action == "" {
		st.Action = ActionNotify
	}
	if in.Subject != "" {
		subj := in.Subject
		st.Subject = &subj
	}
	if in.RequiresApproval != nil && *in.RequiresApproval {
		st.RequiresApproval = 1
	}
	if in.BusinessDays != nil && !*in.BusinessDays {
		st.BusinessDays = 0
	}
	if in.Status != nil {
		st.Status = *in.Status
	}
	if err := validateStep(&st); err != nil {
		return nil, err
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		p, err := lockPlan(ctx, tx, t.OrgID, in.ID)
		if err != nil {
			return err
		}
		if err := stepsChangeable(p); err != nil {
			return err
		}
		if all, _, err := countSteps(ctx, tx, t.OrgID, p.ID); err != nil {
			return err
		} else if all >= maxStepsPerPlan {
			return rest.Unprocessable(fmt.Sprintf("a collection plan has at most %d steps", maxStepsPerPlan))
		}
		st.PlanID = p.ID
		if err := insertStep(ctx, tx, &st); err != nil {
			return err
		}
		return s.reschedulePlan(ctx, tx, p)
	})
	if err != nil {
		return nil, planErr(err)
	}
	return rest.Created(map[string]any{"data": ShowStep(st)}), nil
}

// planStepsUpdate answers dunning_plan_steps_update.
func (s *Service) planStepsUpdate(ctx context.Context, in *updateStepIn) (*rest.Response, error) {
	var st StepRecord
	err := s.inLockedPlan(ctx, s.DB.WithTx, in.ID, func(tx *store.Tx, orgID string, p PlanRecord) error {
		var err error
		if st, err = getStep(ctx, tx, orgID, p.ID, in.StepID); err != nil {
			return stepErr(err)
		}
		if err := stepsChangeable(p); err != nil {
			return err
		}
		patchStep(&st, in)
		if err := validateStep(&st); err != nil {
			return err
		}
		st.UpdatedAt = s.Clock()
		if err := updateStep(ctx, tx, &st); err != nil {
			return err
		}
		if err := keepsAnActiveStep(ctx, tx, p); err != nil {
			return err
		}
		return s.reschedulePlan(ctx, tx, p)
	})
	if err != nil {
		return nil, planErr(err)
	}
	return rest.OK(map[string]any{"data": ShowStep(st)}), nil
}

// describePlanStepsDelete is the confirmation dunning_plan_steps_delete asks for.
func (s *Service) describePlanStepsDelete(ctx context.Context, in *stepRefIn) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	p, err := GetPlan(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return "", planErr(err)
	}
	st, err := getStep(ctx, s.DB, t.OrgID, p.ID, in.StepID)
	if err != nil {
		return "", stepErr(err)
	}
	if err := stepsChangeable(p); err != nil {
		return "", err
	}
	return fmt.Sprintf("Delete step %s (%s at %s) of collection plan '%s'? Charges running through the plan will not get it. This cannot be undone.",
		StepDay(st.OffsetDays), st.Channel, st.SendTime, p.Name), nil
}

// planStepsDelete answers dunning_plan_steps_delete.
func (s *Service) planStepsDelete(ctx context.Context, in *stepRefIn) (*rest.Response, error) {
	err := s.inLockedPlan(ctx, s.Nonces.WithTx, in.ID, func(tx *store.Tx, orgID string, p PlanRecord) error {
		if _, err := getStep(ctx, tx, orgID, p.ID, in.StepID); err != nil {
			return stepErr(err)
		}
		if err := stepsChangeable(p); err != nil {
			return err
		}
		if err := deleteStep(ctx, tx, orgID, p.ID, in.StepID, s.Clock()); err != nil {
			return err
		}
		if err := keepsAnActiveStep(ctx, tx, p); err != nil {
			return err
		}
		return s.reschedulePlan(ctx, tx, p)
	})
	if err != nil {
		return nil, planErr(err)
	}
	return rest.NoContent(), nil
}

// stepsChangeable refuses changes to the steps of an archived plan, kept
// as it was for history.
func stepsChangeable(p PlanRecord) error {
	if p.Status == string(lifecycle.PlanArchived) {
		return rest.Unprocessable("the steps of an archived collection plan cannot be changed")
	}
	return nil
}

// keepsAnActiveStep refuses a change that leaves an active plan without
// an active step: every charge running through it would complete
// silently. Pausing or archiving the plan says so instead.
func keepsAnActiveStep(ctx context.Context, q store.Querier, p PlanRecord) error {
	if p.Status != string(lifecycle.PlanActive) {
		return nil
	}
	_, active, err := countSteps(ctx, q, p.OrganizationID, p.ID)
	if err != nil {
		return err
	}
	if active == 0 {
		return rest.Unprocessable("an active collection plan must keep an active step: pause or archive the plan instead")
	}
	return nil
}

// patchStep applies an update's fields to st. A step that leaves e-mail
// drops its subject unless the update gives one (which validateStep then
// refuses).
func patchStep(st *StepRecord, in *updateStepIn) {
	if in.OffsetDays != nil {
		st.OffsetDays = *in.OffsetDays
	}
	if in.SendTime != nil {
		st.SendTime = *in.SendTime
	}
	if in.Channel != nil {
		if *in.Channel != ledger.ChannelEmail && in.Subject == nil {
			st.Subject = nil
		}
		st.Channel = *in.Channel
	}
	if in.Action != nil {
		st.Action = *in.Action
	}
	if in.Subject != nil {
		st.Subject = nil
		if *in.Subject != "" {
			subj := *in.Subject
			st.Subject = &subj
		}
	}
	if in.Template != nil {
		st.Template = *in.Template
	}
	if in.RequiresApproval != nil {
		st.RequiresApproval = stepFlag(*in.RequiresApproval)
	}
	if in.BusinessDays != nil {
		st.BusinessDays = stepFlag(*in.BusinessDays)
	}
	if in.Status != nil {
		st.Status = *in.Status
	}
}

func stepFlag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// validateStep checks a step as it will be stored, reporting every
// problem at once: the send time, the offset, the subject (an e-mail's,
// one line, a valid template) and the template — each unknown variable or
// malformed brace its own detail with its line and column — and that the
// message, rendered with sample values, fits its channel (an SMS of at
// most six segments).
func validateStep(st *StepRecord) error {
	var bad []rest.FieldError
	clock, err := schedule.ParseClock(st.SendTime)
	if err != nil {
		bad = append(bad, rest.FieldError{Field: "send_time", Message: err.Error()})
	}
	if err == nil {
		if err := (schedule.Step{OffsetDays: st.OffsetDays, SendTime: clock}).Validate(); err != nil {
			bad = append(bad, rest.FieldError{Field: "offset_days", Message: err.Error()})
		}
	}
	ch, err := msgtemplate.ParseChannel(st.Channel)
	if err != nil {
		bad = append(bad, rest.FieldError{Field: "channel", Message: err.Error()})
	}
	switch st.Action {
	case ActionNotify, ActionReportCreditBureau, ActionProtest, ActionOfferAgreement:
	default:
		bad = append(bad, rest.FieldError{Field: "action", Message: "must be one of notify, report_credit_bureau, protest, offer_agreement"})
	}
	switch st.Status {
	case stepActive, stepDisabled:
	default:
		bad = append(bad, rest.FieldError{Field: "status", Message: "must be active or disabled"})
	}
	if st.Subject != nil {
		switch {
		case st.Channel != ledger.ChannelEmail:
			bad = append(bad, rest.FieldError{Field: "subject", Message: "only e-mail steps have a subject"})
		case strings.TrimSpace(*st.Subject) == "":
			bad = append(bad, rest.FieldError{Field: "subject", Message: "must not be blank"})
		case strings.ContainsAny(*st.Subject, "\r\n"):
			bad = append(bad, rest.FieldError{Field: "subject", Message: "must be one line"})
		default:
			bad = append(bad, templateProblems("subject", *st.Subject)...)
		}
	} else if st.Channel == ledger.ChannelEmail {
		bad = append(bad, rest.FieldError{Field: "subject", Message: "is required for e-mail steps"})
	}
	if strings.TrimSpace(st.Template) == "" {
		bad = append(bad, rest.FieldError{Field: "template", Message: "must not be blank"})
	} else if problems := templateProblems("template", st.Template); len(problems) > 0 {
		bad = append(bad, problems...)
	} else if ch != "" {
		// Every variable has a sample value, so a parsed template renders.
		text, _ := msgtemplate.Render(st.Template, msgtemplate.Sample)
		if l := msgtemplate.Measure(ch, text); !l.Fits {
			bad = append(bad, rest.FieldError{Field: "template", Message: fmt.Sprintf("rendered with sample values the message is %s; a %s message may be %s",
				stepDescribeLength(l), ch, l.Limit)})
		}
	}
	if len(bad) > 0 {
		return rest.Validation("the step is invalid", bad...)
	}
	return nil
}

// templateProblems are a template's problems as field details, one per
// problem: "line 2, column 7: unknown variable {{debtor.nome}} (did you
// mean {{debtor.name}}?)".
func templateProblems(field, text string) []rest.FieldError {
	err := msgtemplate.Validate(text)
	var te *msgtemplate.Error
	if !errors.As(err, &te) {
		return nil
	}
	out := make([]rest.FieldError, 0, len(te.Problems))
	for _, p := range te.Problems {
		out = append(out, rest.FieldError{Field: field, Message: p.String()})
	}
	return out
}
