-- Kadu: an execution is one trace across its runs (docs/decisions.md
-- "Traces"). The W3C trace context of the request (or job) that created
-- it, kept so that each run of the execution — the first, a resume after
-- an approval or an answer, a retry — starts its span in that trace, in
-- whichever process and however much later. NULL when tracing was off.

-- +goose Up
ALTER TABLE kadu_executions ADD COLUMN trace_parent TEXT;
ALTER TABLE kadu_executions ADD COLUMN trace_state TEXT;

-- +goose Down
ALTER TABLE kadu_executions DROP COLUMN trace_state;
ALTER TABLE kadu_executions DROP COLUMN trace_parent;
