// Package approval is the approval-link confirmation of destructive MCP
// tools (docs/decisions.md "Approval link"): what a product may choose, instead of
// mcp.Refuse, for clients that cannot confirm a destructive call in the
// chat (any 2025 client, and 2026-07-28 clients without form elicitation).
// productkit builds it for every product (productkit.Approvals); the
// package knows no product.
//
// The flow:
//
//  1. The client calls a destructive tool. The Policy (an
//     mcp.ConfirmPolicy) describes the call (mcp.Tool.Confirm, naming the
//     target; a target that does not exist is answered at once and nothing
//     is stored), stores a pending approval — who (the identity the access
//     token carried, never the token), which tool, the RFC 8785 canonical
//     arguments, the message, an expiry (10 minutes) — and answers:
//     - to a 2026-07-28 client that declared URL elicitation, an
//     input_required result with one elicitation/create request in URL
//     mode (key "approval") whose sealed requestState carries the
//     approval's id;
//     - to any other client, a normal result (not an error) whose text is
//     {"approval_id","approval_url","status":"pending","expires_at",
//     "message"} (Kadu), or, with Options.AsError (the Inbox, Dunning),
//     the seeds' confirmation_required error carrying the link
//     ({"error":{"code","message","approval_url","approval_id",
//     "expires_at"}}, isError): the model shows the link to the person.
//  2. The person opens approval_url, a page of the product's listener
//     (Routes), signs in through the product's own authorization server
//     (the same sign-in and session as OAuth) and, only if they are the
//     person who made the call, sees exactly what will run, with
//     Continuar and Cancelar (CSRF-protected). Anyone else gets a 404.
//  3. Continuar marks the approval approved and runs the stored call in the
//     background (a job on the process's queue, committed with the
//     approval; see run.go), exactly once: the run is claimed with one conditional
//     UPDATE (approved → running), so two clicks, or a click and a client's
//     retry, run it once. It runs as the person (their role read again
//     now), and the outcome — the tool's content blocks, succeeded or
//     failed — is recorded on the approval. Cancelar, or the expiry, ends
//     it with nothing run.
//  4. The 2026 client's retry (with the state) finds: pending → the same
//     URL request again; approved → it claims and runs the call itself
//     (if the background run has not), and answers the tool's result;
//     running → it waits up to RetryWait for the outcome; succeeded or
//     failed → the recorded outcome, never a second run; cancelled,
//     expired, or a decline of the URL request → isError, nothing ran.
//
// The database (migrations/00040_approvals.sql and its successors) is
// the only state, shared by every product, so any replica serves any step,
// and any replica's worker runs an approved call (run.go, job.go): one
// worker per queue, Runners, which hands each approval to its product's
// policy. A product's page shows only its own approvals (Policy.owns). Without a queue, background runs
// are goroutines and Close waits for them at shutdown.
package approval
