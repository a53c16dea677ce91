package collection

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Collection plans (réguas) and their steps (docs/decisions.md "Dunning:
// collection plans and enrollments"). A plan is written as a draft,
// activated (only an active plan takes charges), paused and resumed, and
// archived for good; lifecycle.Plans is the one table of what may follow
// what, and a draft alone may be deleted.

// PlanDetailJSON is a plan with its steps, as get, create and update show
// it: the steps in the plan's nominal order (offset, send time).
type PlanDetailJSON struct {
	PlanJSON
	Steps []StepJSON `json:"steps"`
}

func showPlanDetail(p PlanRecord, steps []StepRecord) PlanDetailJSON {
	p.StepsCount = len(steps)
	out := PlanDetailJSON{PlanJSON: showPlan(p), Steps: make([]StepJSON, 0, len(steps))}
	for _, st := range steps {
		out.Steps = append(out.Steps, ShowStep(st))
	}
	return out
}

type listPlansIn struct {
	restkit.NumberedParams
	Status string `json:"status,omitempty" in:"query" enum:"draft,active,paused,archived" jsonschema:"Only plans in this status."`
	Q      string `json:"q,omitempty" in:"query" maxLength:"200" jsonschema:"Only plans whose name, description or external_id contains this text (case-insensitive)."`
}

type planRefIn struct {
	ID string `json:"id" in:"path" maxLength:"255" jsonschema:"The collection plan's id or external_id."`
}

type createPlanIn struct {
	ExternalID  string `json:"external_id,omitempty" maxLength:"255" jsonschema:"Your own id for the plan; unique among the organization's plans."`
	Name        string `json:"name" minLength:"1" maxLength:"200" jsonschema:"The plan's name (\"Régua padrão\")."`
	Description string `json:"description,omitempty" maxLength:"2000" jsonschema:"What the plan is for, for the people who choose it."`
}

type updatePlanIn struct {
	ID          string  `json:"id" in:"path" maxLength:"255" jsonschema:"The collection plan's id or external_id."`
	ExternalID  *string `json:"external_id,omitempty" minLength:"1" maxLength:"255" jsonschema:"A new external_id."`
	Name        *string `json:"name,omitempty" minLength:"1" maxLength:"200" jsonschema:"A new name."`
	Description *string `json:"description,omitempty" maxLength:"2000" jsonschema:"A new description."`
	Status      *string `json:"status,omitempty" enum:"draft,active,paused,archived" jsonschema:"A new status: draft → active (needs an active step), active ⇄ paused (a paused plan's steps wait; its enrollments are kept). Archiving is dunning_plans_archive, which stops the plan's enrollments and asks for confirmation."`
}

func registerPlans(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_plans_list", Method: "GET", Path: "/collection-plans", Tags: []string{"collection plans"},
		Title:    "List collection plans",
		Summary:  "Lists the organization's collection plans (réguas), oldest first, with numbered pages (page, per_page); filters by status and text in the name, description or external_id.",
		Requires: PlansRead, Annotations: restkit.ReadOnly(),
	}, s.plansList)
	rest.Handle(api, rest.Operation{
		ID: "dunning_plans_get", Method: "GET", Path: "/collection-plans/{id}", Tags: []string{"collection plans"},
		Title:    "Get a collection plan",
		Summary:  "Gets one collection plan by id or external_id, with its steps in order of their offset from the due date.",
		Requires: PlansRead, Annotations: restkit.ReadOnly(),
	}, s.plansGet)
	rest.Handle(api, rest.Operation{
		ID: "dunning_plans_create", Method: "POST", Path: "/collection-plans", Tags: []string{"collection plans"},
		Title:    "Create a collection plan",
		Summary:  "Creates a collection plan as a draft: add its steps (dunning_plan_steps_create), check it on a charge (dunning_charges_preview), then activate it (dunning_plans_update with status active).",
		Requires: PlansWrite, Annotations: restkit.Write(false),
	}, s.plansCreate)
	rest.Handle(api, rest.Operation{
		ID: "dunning_plans_update", Method: "PATCH", Path: "/collection-plans/{id}", Tags: []string{"collection plans"},
		Title: "Update a collection plan",
		Summary: "Changes the given fields of a collection plan: name, description, external_id, and its status (draft → active, active ⇄ paused). " +
			"An illegal change of status is UNPROCESSABLE naming both states; archiving is dunning_plans_archive.",
		Requires: PlansWrite, Annotations: restkit.Write(false),
	}, s.plansUpdate)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_plans_archive", Method: "POST", Path: "/collection-plans/{id}/archive", Tags: []string{"collection plans"},
		Title: "Archive a collection plan",
		Summary: "Archives an active or paused collection plan for good: it takes no new charges, and every charge still running through it stops " +
			"(its enrollments end with stopped_reason plan_archived; no further step is sent). A draft is deleted instead.",
		Description: "Destructive: it cannot be undone. Archiving an archived plan changes nothing.",
		Requires:    plansManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describePlansArchive, s.plansArchive)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_plans_delete", Method: "DELETE", Path: "/collection-plans/{id}", Tags: []string{"collection plans"},
		Title:       "Delete a collection plan",
		Summary:     "Deletes a draft collection plan with its steps. Only a draft can be deleted (it never contacted anyone); a plan that was ever active is archived instead (UNPROCESSABLE otherwise).",
		Description: "Destructive: it cannot be undone.",
		Requires:    plansManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describePlansDelete, s.plansDelete)
}

// plansList answers dunning_plans_list.
func (s *Service) plansList(ctx context.Context, in *listPlansIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	page, perPage, offset := in.Window()
	rows, total, err := listPlans(ctx, s.DB, t.OrgID, planListFilter{Status: in.Status, Q: strings.TrimSpace(in.Q), Offset: offset, Limit: perPage})
	if err != nil {
		return nil, err
	}
	return restkit.NumberedPage(rows, page, perPage, total, showPlan), nil
}

// plansGet answers dunning_plans_get.
func (s *Service) plansGet(ctx context.Context, in *planRefIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	p, err := GetPlan(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return nil, planErr(err)
	}
	steps, err := listSteps(ctx, s.DB, t.OrgID, p.ID)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": showPlanDetail(p, steps)}), nil
}

// plansCreate answers dunning_plans_create.
func (s *Service) plansCreate(ctx context.Context, in *createPlanIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Clock()
	p := PlanRecord{ID: store.NewID(), OrganizationID: t.OrgID, Name: strings.TrimSpace(in.Name), Description: strings.TrimSpace(in.Description),
		Status: string(lifecycle.PlanDraft), CreatedAt: now, UpdatedAt: now}
	var bad []rest.FieldError
	if p.Name == "" {
		bad = append(bad, rest.FieldError{Field: "name", Message: "must not be blank"})
	}
	if ext := strings.TrimSpace(in.ExternalID); ext != "" {
		p.ExternalID = &ext
	} else if in.ExternalID != "" {
		bad = append(bad, rest.FieldError{Field: "external_id", Message: "must not be blank"})
	}
	if len(bad) > 0 {
		return nil, rest.Validation("the request is invalid", bad...)
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if p.ExternalID != nil {
			taken, err := planExternalIDTaken(ctx, tx, t.OrgID, *p.ExternalID, p.ID)
			if err != nil {
				return err
			}
			if taken {
				return store.ErrConflict
			}
		}
		return insertPlan(ctx, tx, &p)
	})
	if err != nil {
		return nil, planErr(err)
	}
	return rest.Created(map[string]any{"data": showPlanDetail(p, nil)}), nil
}

// plansUpdate answers dunning_plans_update.
func (s *Service) plansUpdate(ctx context.Context, in *updatePlanIn) (*rest.Response, error) {
	var p PlanRecord
	var steps []StepRecord
	err := s.inLockedPlan(ctx, s.DB.WithTx, in.ID, func(tx *store.Tx, orgID string, locked PlanRecord) error {
		p = locked
		if err := s.patchPlan(ctx, tx, &p, in); err != nil {
			return err
		}
		var err error
		steps, err = listSteps(ctx, tx, orgID, p.ID)
		return err
	})
	if err != nil {
		return nil, planErr(err)
	}
	return rest.OK(map[string]any{"data": showPlanDetail(p, steps)}), nil
}

// describePlansArchive is the confirmation dunning_plans_archive asks for.
func (s *Service) describePlansArchive(ctx context.Context, in *planRefIn) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	p, err := GetPlan(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return "", planErr(err)
	}
	if err := lifecycle.PlanStatus(p.Status).CanBecome(lifecycle.PlanArchived); err != nil && !errors.Is(err, lifecycle.ErrNoChange) {
		return "", planArchiveErr(err)
	}
	n, err := countActiveEnrollments(ctx, s.DB, t.OrgID, p.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Archive collection plan '%s'? %s, and it takes no new charges. This cannot be undone.", p.Name, planStopsEnrollments(n)), nil
}

// plansArchive answers dunning_plans_archive.
func (s *Service) plansArchive(ctx context.Context, in *planRefIn) (*rest.Response, error) {
	var p PlanRecord
	var steps []StepRecord
	err := s.inLockedPlan(ctx, s.Nonces.WithTx, in.ID, func(tx *store.Tx, orgID string, locked PlanRecord) error {
		p = locked
		err := lifecycle.PlanStatus(p.Status).CanBecome(lifecycle.PlanArchived)
		switch {
		case errors.Is(err, lifecycle.ErrNoChange):
		case err != nil:
			return planArchiveErr(err)
		default:
			p.Status, p.UpdatedAt = string(lifecycle.PlanArchived), s.Clock()
			if err := updatePlan(ctx, tx, &p); err != nil {
				return err
			}
			if err := s.stopPlanEnrollments(ctx, tx, p, lifecycle.StopPlanArchived); err != nil {
				return err
			}
		}
		steps, err = listSteps(ctx, tx, orgID, p.ID)
		return err
	})
	if err != nil {
		return nil, planErr(err)
	}
	return rest.OK(map[string]any{"data": showPlanDetail(p, steps)}), nil
}

// describePlansDelete is the confirmation dunning_plans_delete asks for.
func (s *Service) describePlansDelete(ctx context.Context, in *planRefIn) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	p, err := GetPlan(ctx, s.DB, t.OrgID, in.ID)
	if err != nil {
		return "", planErr(err)
	}
	if err := lifecycle.PlanStatus(p.Status).CheckDelete(); err != nil {
		return "", planTransitionErr(err)
	}
	n, _, err := countSteps(ctx, s.DB, t.OrgID, p.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Delete draft collection plan '%s' and its %s? This cannot be undone.", p.Name, planPlural(n, "step", "steps")), nil
}

// plansDelete answers dunning_plans_delete.
func (s *Service) plansDelete(ctx context.Context, in *planRefIn) (*rest.Response, error) {
	err := s.inLockedPlan(ctx, s.Nonces.WithTx, in.ID, func(tx *store.Tx, orgID string, p PlanRecord) error {
		if err := lifecycle.PlanStatus(p.Status).CheckDelete(); err != nil {
			return planTransitionErr(err)
		}
		return deletePlan(ctx, tx, orgID, p.ID, s.Clock())
	})
	if err != nil {
		return nil, planErr(err)
	}
	return rest.NoContent(), nil
}

// planArchiveErr is a refused archive: a draft is deleted, not archived.
func planArchiveErr(err error) error {
	var te *lifecycle.TransitionError
	if errors.As(err, &te) && te.From == string(lifecycle.PlanDraft) {
		return rest.Unprocessable(err.Error() + "; a draft never contacted anyone: delete it instead (dunning_plans_delete)")
	}
	return planTransitionErr(err)
}

// patchPlan applies an update's fields to p and writes it. A change of
// status goes through lifecycle.Plans; activating needs at least one
// active step (a plan with none would contact no one); resuming a paused
// plan reschedules its enrollments, whose steps waited.
func (s *Service) patchPlan(ctx context.Context, tx *store.Tx, p *PlanRecord, in *updatePlanIn) error {
	if p.Status == string(lifecycle.PlanArchived) {
		return rest.Unprocessable("an archived collection plan cannot be changed")
	}
	var bad []rest.FieldError
	if in.Name != nil {
		if p.Name = strings.TrimSpace(*in.Name); p.Name == "" {
			bad = append(bad, rest.FieldError{Field: "name", Message: "must not be blank"})
		}
	}
	if in.Description != nil {
		p.Description = strings.TrimSpace(*in.Description)
	}
	if in.ExternalID != nil {
		ext := strings.TrimSpace(*in.ExternalID)
		if ext == "" {
			bad = append(bad, rest.FieldError{Field: "external_id", Message: "must not be blank"})
		} else if p.ExternalID == nil || *p.ExternalID != ext {
			taken, err := planExternalIDTaken(ctx, tx, p.OrganizationID, ext, p.ID)
			if err != nil {
				return err
			}
			if taken {
				return store.ErrConflict
			}
			p.ExternalID = &ext
		}
	}
	if len(bad) > 0 {
		return rest.Validation("the request is invalid", bad...)
	}
	resumed := false
	if in.Status != nil {
		from, to := lifecycle.PlanStatus(p.Status), lifecycle.PlanStatus(*in.Status)
		err := from.CanBecome(to)
		switch {
		case errors.Is(err, lifecycle.ErrNoChange):
		case err != nil:
			return planTransitionErr(err)
		case to == lifecycle.PlanArchived:
			return rest.Unprocessable("archiving a collection plan stops its enrollments: use dunning_plans_archive (POST /v1/collection-plans/{id}/archive), which asks for confirmation")
		default:
			if to == lifecycle.PlanActive {
				if _, active, err := countSteps(ctx, tx, p.OrganizationID, p.ID); err != nil {
					return err
				} else if active == 0 {
					return rest.Unprocessable(fmt.Sprintf("a %s collection plan without an active step cannot become active: add a step first", from))
				}
			}
			resumed = from == lifecycle.PlanPaused && to == lifecycle.PlanActive
			p.Status = string(to)
		}
	}
	p.UpdatedAt = s.Clock()
	if err := updatePlan(ctx, tx, p); err != nil {
		return err
	}
	if resumed {
		return s.reschedulePlan(ctx, tx, *p)
	}
	return nil
}

// planStopsEnrollments says what archiving does to n running enrollments.
func planStopsEnrollments(n int) string {
	switch n {
	case 0:
		return "No charge is running through it"
	case 1:
		return "The 1 charge running through it stops (no further step is sent)"
	}
	return fmt.Sprintf("The %d charges running through it stop (no further step is sent)", n)
}
