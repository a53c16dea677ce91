// Package ledger is the bottom layer of Kobana Dunning: the organization's
// debtors, charges, payments, waivers and settings, the one write path of
// a charge's status, amounts, counts and events (ledger.go), and what
// every layer above shares — the Service (database, queue, webhooks,
// clock, tenancy), the error shapes, the list counts, the channels'
// senders. It calls no layer above it: what must happen above when a
// charge closes or its due date moves is a hook those layers add while
// the product is built (Service.WhenChargeClosed, Service.WhenDueMoved).
//
// Where to start: a tool name (dunning_charges_payments_create) is
// declared in a RegisterX table (RegisterCharges in charges_register.go,
// registerPayments in payments.go), which names its handler method; the
// handler reads and writes through the aggregate's store
// (charges_store.go, debtors_store.go, settings_store.go,
// counts_store.go: every SQL text of the package is in a *_store.go file
// but the charge's one UPDATE, in ledger.go) and, for money, through
// ledger.go. See docs/dunning.md "Code layout".
//
// The files are layered, each using only names of those below it (no
// file cycle): the rows (records.go), the stores and the service
// (service.go) at the bottom; the settings and what a charge costs
// (settings.go, charge_breakdown.go), the views and the events above
// them; the write path (ledger.go) above those; then the handlers
// (debtors.go, me.go, charges.go, and payments.go and waivers.go, which
// use charges.go's); RegisterCharges (charges_register.go) on top.
package ledger
