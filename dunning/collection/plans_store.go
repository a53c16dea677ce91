package collection

import (
	"context"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
)

// PlanRecord is a row of dunning_plans: a collection plan (régua).
type PlanRecord struct {
	ID             string     `db:"id"`
	OrganizationID string     `db:"organization_id"`
	ExternalID     *string    `db:"external_id"`
	Name           string     `db:"name"`
	Description    string     `db:"description"`
	Status         string     `db:"status"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
	DeletedAt      *time.Time `db:"deleted_at"`
	// StepsCount is filled by listings only (a subquery), 0 elsewhere.
	StepsCount int `db:"steps_count"`
}

// StepRecord is a row of dunning_plan_steps. Booleans are INTEGER 0/1,
// as every Dunning table keeps them.
type StepRecord struct {
	ID               string     `db:"id"`
	OrganizationID   string     `db:"organization_id"`
	PlanID           string     `db:"plan_id"`
	OffsetDays       int        `db:"offset_days"`
	SendTime         string     `db:"send_time"`
	Channel          string     `db:"channel"`
	Action           string     `db:"action"`
	Subject          *string    `db:"subject"`
	Template         string     `db:"template"`
	RequiresApproval int        `db:"requires_approval"`
	BusinessDays     int        `db:"business_days"`
	Status           string     `db:"status"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
	DeletedAt        *time.Time `db:"deleted_at"`
}

const planColumns = `id, organization_id, external_id, name, description, status, created_at, updated_at, deleted_at`

const StepColumns = `id, organization_id, plan_id, offset_days, send_time, channel, action, subject, template,
	requires_approval, business_days, status, created_at, updated_at, deleted_at`

// planByRef is the condition of a lookup of a live plan by id or
// external_id inside one organization; an id wins over another plan's
// equal external_id.
const planByRef = `organization_id = ? AND deleted_at IS NULL AND (id = ? OR external_id = ?)
	ORDER BY CASE WHEN id = ? THEN 0 ELSE 1 END LIMIT 1`

// GetPlan reads a live plan of the organization by id or external_id;
// another organization's plan, or a deleted one, is store.ErrNotFound.
func GetPlan(ctx context.Context, q store.Querier, orgID, ref string) (PlanRecord, error) {
	var p PlanRecord
	err := q.Get(ctx, &p, `SELECT `+planColumns+` FROM dunning_plans WHERE `+planByRef, orgID, ref, ref, ref)
	return p, err
}

// planByID reads a plan of the organization by id, deleted or not: an
// enrollment's event names its plan whatever became of it.
func planByID(ctx context.Context, q store.Querier, orgID, id string) (PlanRecord, error) {
	var p PlanRecord
	err := q.Get(ctx, &p, `SELECT `+planColumns+` FROM dunning_plans WHERE organization_id = ? AND id = ?`, orgID, id)
	return p, err
}

// lockPlan is getPlan for a transaction that rewrites the plan or its
// steps: two concurrent changes of one plan run one after the other.
func lockPlan(ctx context.Context, tx *store.Tx, orgID, ref string) (PlanRecord, error) {
	var p PlanRecord
	err := tx.Get(ctx, &p, `SELECT `+planColumns+` FROM dunning_plans WHERE `+planByRef+ledger.ForUpdate(tx), orgID, ref, ref, ref)
	return p, err
}

// planListFilter narrows dunning_plans_list.
type planListFilter struct {
	Status string
	Q      string
	Offset int
	Limit  int
}

// listPlans is one numbered page of the organization's live plans,
// oldest first, with each plan's number of live steps, and how many plans
// the whole listing has.
func listPlans(ctx context.Context, q store.Querier, orgID string, f planListFilter) ([]PlanRecord, int, error) {
	where := []string{`organization_id = ?`, `deleted_at IS NULL`}
	args := []any{orgID}
	if f.Status != "" {
		where = append(where, `status = ?`)
		args = append(args, f.Status)
	}
	if f.Q != "" {
		pat := ledger.LikeContains(strings.ToLower(f.Q))
		where = append(where, `(LOWER(name) LIKE ? ESCAPE '\' OR LOWER(description) LIKE ? ESCAPE '\' OR LOWER(COALESCE(external_id, '')) LIKE ? ESCAPE '\')`)
		args = append(args, pat, pat, pat)
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := q.Get(ctx, &total, `SELECT COUNT(*) FROM dunning_plans WHERE `+cond, args...); err != nil {
		return nil, 0, err
	}
	rows := []PlanRecord{}
	err := q.Select(ctx, &rows, `SELECT `+planColumns+`,
		(SELECT COUNT(*) FROM dunning_plan_steps st WHERE st.plan_id = dunning_plans.id AND st.deleted_at IS NULL) AS steps_count
		FROM dunning_plans WHERE `+cond+` ORDER BY created_at, id LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return rows, total, err
}

// planExternalIDTaken reports whether another live plan of the
// organization has externalID (the partial unique index has the last
// word under concurrency).
func planExternalIDTaken(ctx context.Context, q store.Querier, orgID, externalID, selfID string) (bool, error) {
	var n int
	err := q.Get(ctx, &n, `SELECT COUNT(*) FROM dunning_plans WHERE organization_id = ? AND external_id = ? AND deleted_at IS NULL AND id <> ?`,
		orgID, externalID, selfID)
	return n > 0, err
}

func insertPlan(ctx context.Context, q store.Querier, p *PlanRecord) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_plans (id, organization_id, external_id, name, description, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, p.ID, p.OrganizationID, p.ExternalID, p.Name, p.Description, p.Status, p.CreatedAt, p.UpdatedAt)
	return err
}

func updatePlan(ctx context.Context, q store.Querier, p *PlanRecord) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE dunning_plans SET external_id = ?, name = ?, description = ?, status = ?, updated_at = ?
		WHERE id = ? AND organization_id = ? AND deleted_at IS NULL`,
		p.ExternalID, p.Name, p.Description, p.Status, p.UpdatedAt, p.ID, p.OrganizationID))
}

// deletePlan marks a plan and its steps deleted: a draft never contacted
// anyone, but the rows stay until the organization is deleted, like every
// deleted row of the product.
func deletePlan(ctx context.Context, q store.Querier, orgID, id string, now time.Time) error {
	if err := store.ExpectOne(q.Exec(ctx, `UPDATE dunning_plans SET deleted_at = ?, updated_at = ? WHERE id = ? AND organization_id = ? AND deleted_at IS NULL`,
		now, now, id, orgID)); err != nil {
		return err
	}
	_, err := q.Exec(ctx, `UPDATE dunning_plan_steps SET deleted_at = ?, updated_at = ? WHERE plan_id = ? AND organization_id = ? AND deleted_at IS NULL`,
		now, now, id, orgID)
	return err
}

// listSteps is every live step of a plan, in the plan's nominal order
// (offset, send time, id); the order a charge meets them in is the
// schedule's (planCalendar).
func listSteps(ctx context.Context, q store.Querier, orgID, planID string) ([]StepRecord, error) {
	rows := []StepRecord{}
	err := q.Select(ctx, &rows, `SELECT `+StepColumns+` FROM dunning_plan_steps
		WHERE organization_id = ? AND plan_id = ? AND deleted_at IS NULL ORDER BY offset_days, send_time, id`, orgID, planID)
	return rows, err
}

// getStep reads a live step of a plan of the organization.
func getStep(ctx context.Context, q store.Querier, orgID, planID, stepID string) (StepRecord, error) {
	var st StepRecord
	err := q.Get(ctx, &st, `SELECT `+StepColumns+` FROM dunning_plan_steps
		WHERE organization_id = ? AND plan_id = ? AND id = ? AND deleted_at IS NULL`, orgID, planID, stepID)
	return st, err
}

// countSteps is how many live steps a plan has, and how many of them are
// active.
func countSteps(ctx context.Context, q store.Querier, orgID, planID string) (all, active int, err error) {
	var c struct {
		All    int `db:"all_steps"`
		Active int `db:"active_steps"`
	}
	err = q.Get(ctx, &c, `SELECT COUNT(*) AS all_steps, COALESCE(SUM(CASE WHEN status = 'active' THEN 1 ELSE 0 END), 0) AS active_steps
		FROM dunning_plan_steps WHERE organization_id = ? AND plan_id = ? AND deleted_at IS NULL`, orgID, planID)
	return c.All, c.Active, err
}

func insertStep(ctx context.Context, q store.Querier, st *StepRecord) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_plan_steps (id, organization_id, plan_id, offset_days, send_time, channel, action, subject,
		template, requires_approval, business_days, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		st.ID, st.OrganizationID, st.PlanID, st.OffsetDays, st.SendTime, st.Channel, st.Action, st.Subject,
		st.Template, st.RequiresApproval, st.BusinessDays, st.Status, st.CreatedAt, st.UpdatedAt)
	return err
}

func updateStep(ctx context.Context, q store.Querier, st *StepRecord) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE dunning_plan_steps SET offset_days = ?, send_time = ?, channel = ?, action = ?, subject = ?,
		template = ?, requires_approval = ?, business_days = ?, status = ?, updated_at = ?
		WHERE id = ? AND organization_id = ? AND plan_id = ? AND deleted_at IS NULL`,
		st.OffsetDays, st.SendTime, st.Channel, st.Action, st.Subject, st.Template, st.RequiresApproval, st.BusinessDays, st.Status,
		st.UpdatedAt, st.ID, st.OrganizationID, st.PlanID))
}

func deleteStep(ctx context.Context, q store.Querier, orgID, planID, stepID string, now time.Time) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE dunning_plan_steps SET deleted_at = ?, updated_at = ?
		WHERE id = ? AND organization_id = ? AND plan_id = ? AND deleted_at IS NULL`, now, now, stepID, orgID, planID))
}

// Step actions. Only notify runs in this release; the others are stored
// and validated now and run by the next part of Dunning (credit bureaus,
// protests, agreements).
const (
	ActionNotify             = "notify"
	ActionReportCreditBureau = "report_credit_bureau"
	ActionProtest            = "protest"
	ActionOfferAgreement     = "offer_agreement"
)

// Step statuses (dunning_plan_steps.status): a disabled step stays in its
// plan but no charge meets it.
const (
	stepActive   = "active"
	stepDisabled = "disabled"
)
