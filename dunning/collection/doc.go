// Package collection is Dunning's collection plans (réguas): plans, their
// steps, the enrollments of charges in them, the plan calendar (business
// days, FEBRABAN bank holidays) and the preview of what a plan would
// send. It sits on the ledger and moves an enrollment's steps when the
// ledger reports a due date moved (RegisterCollectionPlans adds the
// hook). See docs/dunning.md "Code layout".
//
// The files are layered, each using only those below it: the rows and
// their SQL (plans_store.go, enrollments_store.go); the plan calendar,
// the views, the errors and the permissions; the enrollments' domain
// (enrollments.go: enrolling, stopping, rescheduling, advancing, their
// events); the start every plan or step write shares (plan_lock.go:
// inLockedPlan); the handlers (steps.go below plans.go, which shows a
// plan with its steps; enrollments_api.go, preview.go);
// RegisterCollectionPlans (register.go) on top.
package collection
