// Package lifecycle holds the state machines of Dunning's resources —
// charges, enrollments (a charge in a collection plan) and collection
// plans — each as one transition table enforced by one function, so the
// API, the MCP tools and the background jobs cannot disagree about what
// may follow what.
//
// Every change of state goes through Machine.Check (or the status type's
// CanBecome, which calls it). An illegal change is a *TransitionError
// whose message names both states, "a paid charge cannot become
// overdue", matching ErrIllegalTransition; asking for the state a
// resource is already in matches ErrNoChange instead, so an idempotent
// endpoint can answer success without doing anything.
package lifecycle
