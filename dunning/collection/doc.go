// Package collection is Dunning's collection plans (réguas): plans, their
// steps, the enrollments of charges in them, the plan calendar (business
// days, FEBRABAN bank holidays) and the preview of what a plan would
// send. It sits on the ledger and moves an enrollment's steps when the
// ledger reports a due date moved (RegisterCollectionPlans adds the
// hook). See docs/dunning.md "Code layout".
package collection
