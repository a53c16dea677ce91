-- Kadu: budgets that pause (docs/decisions.md "Kadu: budgets that
-- pause"). An execution whose next model step could cross its ceiling
-- waits in waiting_budget for a person to raise the ceiling or approve
-- the overrun, instead of ending cost_exceeded.
--
-- The status column's CHECK names every status, and SQLite cannot change
-- a CHECK in place: both engines rebuild kadu_executions with the new
-- list, with the same SQL. kadu_execution_steps is rebuilt beside it,
-- because its rows reference executions ON DELETE CASCADE (on SQLite
-- dropping the old executions would delete them; on PostgreSQL the
-- reference forbids the drop): new tables, every row copied, the old
-- ones dropped (steps first), the new ones renamed (SQLite rewrites the
-- steps' reference to the new name; PostgreSQL follows the table), the
-- indexes of 00300 and 00330 created again. Each migration runs in one
-- transaction: it commits whole or not at all.

-- +goose Up
CREATE TABLE kadu_executions_v2 (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    task_id           TEXT NOT NULL REFERENCES kadu_tasks (id) ON DELETE CASCADE,
    trigger_kind      TEXT NOT NULL CHECK (trigger_kind IN ('manual', 'schedule', 'api')),
    triggered_by      TEXT,
    status            TEXT NOT NULL CONSTRAINT kadu_executions_status CHECK (status IN ('queued', 'running', 'waiting_input',
                          'waiting_approval', 'waiting_budget', 'succeeded', 'failed', 'canceled', 'timed_out', 'cost_exceeded')),
    model             TEXT,
    input             TEXT NOT NULL,
    input_file_ids    TEXT NOT NULL,
    max_cost_cents    BIGINT NOT NULL,
    cost_cents        BIGINT NOT NULL,
    tokens_in         BIGINT NOT NULL,
    tokens_out        BIGINT NOT NULL,
    tokens_cached     BIGINT NOT NULL,
    step_count        INTEGER NOT NULL,
    output            TEXT,
    error_code        TEXT,
    error_message     TEXT,
    -- JSON: what a waiting execution waits for (the question, the call to
    -- approve, the step the budget does not cover); NULL otherwise.
    waiting           TEXT,
    checkpoint        TEXT,
    approval_id       TEXT,
    tick_at           {{timestamp}},
    started_at        {{timestamp}},
    finished_at       {{timestamp}},
    deadline          {{timestamp}},
    created_at        {{timestamp}} NOT NULL,
    updated_at        {{timestamp}} NOT NULL,
    -- The input a person gave kadu_executions_continue (an answer, or a
    -- budget decision), JSON, until the runtime takes it.
    resume_input      TEXT,
    trace_parent      TEXT,
    trace_state       TEXT
);
INSERT INTO kadu_executions_v2 (id, organization_id, task_id, trigger_kind, triggered_by, status, model, input,
    input_file_ids, max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count, output, error_code,
    error_message, waiting, checkpoint, approval_id, tick_at, started_at, finished_at, deadline, created_at, updated_at,
    resume_input, trace_parent, trace_state)
SELECT id, organization_id, task_id, trigger_kind, triggered_by, status, model, input,
    input_file_ids, max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count, output, error_code,
    error_message, waiting, checkpoint, approval_id, tick_at, started_at, finished_at, deadline, created_at, updated_at,
    resume_input, trace_parent, trace_state
FROM kadu_executions;

CREATE TABLE kadu_execution_steps_v2 (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    execution_id    TEXT NOT NULL REFERENCES kadu_executions_v2 (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('llm', 'tool_call', 'message')),
    tool_name       TEXT,
    arguments       TEXT,
    result_summary  TEXT,
    status          TEXT NOT NULL CHECK (status IN ('started', 'succeeded', 'failed', 'unknown')),
    error_message   TEXT,
    tokens_in       BIGINT NOT NULL,
    tokens_out      BIGINT NOT NULL,
    tokens_cached   BIGINT NOT NULL,
    cost_cents      BIGINT NOT NULL,
    duration_ms     BIGINT NOT NULL,
    started_at      {{timestamp}} NOT NULL,
    finished_at     {{timestamp}},
    created_at      {{timestamp}} NOT NULL,
    updated_at      {{timestamp}} NOT NULL
);
INSERT INTO kadu_execution_steps_v2 (id, organization_id, execution_id, seq, kind, tool_name, arguments, result_summary,
    status, error_message, tokens_in, tokens_out, tokens_cached, cost_cents, duration_ms, started_at, finished_at,
    created_at, updated_at)
SELECT id, organization_id, execution_id, seq, kind, tool_name, arguments, result_summary,
    status, error_message, tokens_in, tokens_out, tokens_cached, cost_cents, duration_ms, started_at, finished_at,
    created_at, updated_at
FROM kadu_execution_steps;

DROP TABLE kadu_execution_steps;
DROP TABLE kadu_executions;
ALTER TABLE kadu_executions_v2 RENAME TO kadu_executions;
ALTER TABLE kadu_execution_steps_v2 RENAME TO kadu_execution_steps;

CREATE INDEX kadu_executions_list ON kadu_executions (organization_id, id);
CREATE INDEX kadu_executions_task ON kadu_executions (organization_id, task_id, status, id);
CREATE INDEX kadu_executions_status ON kadu_executions (organization_id, status, id);
CREATE INDEX kadu_executions_deadline ON kadu_executions (status, deadline);
CREATE INDEX kadu_executions_task_list ON kadu_executions (organization_id, task_id, id);
CREATE INDEX kadu_executions_trigger ON kadu_executions (organization_id, trigger_kind, id);
CREATE UNIQUE INDEX kadu_execution_steps_seq ON kadu_execution_steps (execution_id, seq);

-- +goose Down
-- Back to the list without waiting_budget: an execution waiting for its
-- budget ends cost_exceeded, as it would have before this step.
UPDATE kadu_executions SET status = 'cost_exceeded', waiting = NULL, error_code = 'cost_exceeded',
    error_message = 'the schema went back to a version without budget waits: the execution ended at its ceiling',
    finished_at = updated_at WHERE status = 'waiting_budget';
CREATE TABLE kadu_executions_v1 (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    task_id           TEXT NOT NULL REFERENCES kadu_tasks (id) ON DELETE CASCADE,
    trigger_kind      TEXT NOT NULL CHECK (trigger_kind IN ('manual', 'schedule', 'api')),
    triggered_by      TEXT,
    status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'waiting_input', 'waiting_approval',
                          'succeeded', 'failed', 'canceled', 'timed_out', 'cost_exceeded')),
    model             TEXT,
    input             TEXT NOT NULL,
    input_file_ids    TEXT NOT NULL,
    max_cost_cents    BIGINT NOT NULL,
    cost_cents        BIGINT NOT NULL,
    tokens_in         BIGINT NOT NULL,
    tokens_out        BIGINT NOT NULL,
    tokens_cached     BIGINT NOT NULL,
    step_count        INTEGER NOT NULL,
    output            TEXT,
    error_code        TEXT,
    error_message     TEXT,
    waiting           TEXT,
    checkpoint        TEXT,
    approval_id       TEXT,
    tick_at           {{timestamp}},
    started_at        {{timestamp}},
    finished_at       {{timestamp}},
    deadline          {{timestamp}},
    created_at        {{timestamp}} NOT NULL,
    updated_at        {{timestamp}} NOT NULL,
    resume_input      TEXT,
    trace_parent      TEXT,
    trace_state       TEXT
);
INSERT INTO kadu_executions_v1 (id, organization_id, task_id, trigger_kind, triggered_by, status, model, input,
    input_file_ids, max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count, output, error_code,
    error_message, waiting, checkpoint, approval_id, tick_at, started_at, finished_at, deadline, created_at, updated_at,
    resume_input, trace_parent, trace_state)
SELECT id, organization_id, task_id, trigger_kind, triggered_by, status, model, input,
    input_file_ids, max_cost_cents, cost_cents, tokens_in, tokens_out, tokens_cached, step_count, output, error_code,
    error_message, waiting, checkpoint, approval_id, tick_at, started_at, finished_at, deadline, created_at, updated_at,
    resume_input, trace_parent, trace_state
FROM kadu_executions;

CREATE TABLE kadu_execution_steps_v1 (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    execution_id    TEXT NOT NULL REFERENCES kadu_executions_v1 (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('llm', 'tool_call', 'message')),
    tool_name       TEXT,
    arguments       TEXT,
    result_summary  TEXT,
    status          TEXT NOT NULL CHECK (status IN ('started', 'succeeded', 'failed', 'unknown')),
    error_message   TEXT,
    tokens_in       BIGINT NOT NULL,
    tokens_out      BIGINT NOT NULL,
    tokens_cached   BIGINT NOT NULL,
    cost_cents      BIGINT NOT NULL,
    duration_ms     BIGINT NOT NULL,
    started_at      {{timestamp}} NOT NULL,
    finished_at     {{timestamp}},
    created_at      {{timestamp}} NOT NULL,
    updated_at      {{timestamp}} NOT NULL
);
INSERT INTO kadu_execution_steps_v1 (id, organization_id, execution_id, seq, kind, tool_name, arguments, result_summary,
    status, error_message, tokens_in, tokens_out, tokens_cached, cost_cents, duration_ms, started_at, finished_at,
    created_at, updated_at)
SELECT id, organization_id, execution_id, seq, kind, tool_name, arguments, result_summary,
    status, error_message, tokens_in, tokens_out, tokens_cached, cost_cents, duration_ms, started_at, finished_at,
    created_at, updated_at
FROM kadu_execution_steps;

DROP TABLE kadu_execution_steps;
DROP TABLE kadu_executions;
ALTER TABLE kadu_executions_v1 RENAME TO kadu_executions;
ALTER TABLE kadu_execution_steps_v1 RENAME TO kadu_execution_steps;

CREATE INDEX kadu_executions_list ON kadu_executions (organization_id, id);
CREATE INDEX kadu_executions_task ON kadu_executions (organization_id, task_id, status, id);
CREATE INDEX kadu_executions_status ON kadu_executions (organization_id, status, id);
CREATE INDEX kadu_executions_deadline ON kadu_executions (status, deadline);
CREATE INDEX kadu_executions_task_list ON kadu_executions (organization_id, task_id, id);
CREATE INDEX kadu_executions_trigger ON kadu_executions (organization_id, trigger_kind, id);
CREATE UNIQUE INDEX kadu_execution_steps_seq ON kadu_execution_steps (execution_id, seq);
