-- Kadu: tasks (what runs, with which tools and who may start it), their
-- executions and each execution's steps, the organization's monthly usage
-- and the schedule's ticks.
--
-- Conventions (docs/decisions.md "Migrations"): ids are UUID text, JSON is
-- TEXT written by Go, booleans INTEGER 0/1, money integer cents (BIGINT),
-- instants {{timestamp}} written from Go in UTC, never by a default.

-- +goose Up
CREATE TABLE kadu_tasks (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    -- The person who created the task: always allowed to run it.
    owner_user_id      TEXT NOT NULL,
    name               TEXT NOT NULL,
    instructions       TEXT NOT NULL,
    mode               TEXT NOT NULL CHECK (mode IN ('workflow', 'agent')),
    -- JSON: the workflow's steps ([] for an agent task).
    steps              TEXT NOT NULL,
    -- JSON: the tool names the task may call ([] for none).
    allowed_tools      TEXT NOT NULL,
    -- JSON: per target product, the scopes the allowed tools need, granted
    -- when the task was saved by a person whose role allows them
    -- ({"inbox": ["inbox.emails"], …}).
    granted_scopes     TEXT NOT NULL,
    -- The model an agent task runs with; NULL: the deployment's default.
    model              TEXT,
    -- A cron expression (five fields) read in schedule_timezone (IANA);
    -- NULL: not scheduled.
    schedule_cron      TEXT,
    schedule_timezone  TEXT,
    -- The most one execution may cost; NULL: the plan's maximum.
    cost_ceiling_cents BIGINT,
    -- JSON {"users": [ids], "roles": [roles]}: who besides the owner may run it.
    triggerers         TEXT NOT NULL,
    -- JSON: where an execution's result goes ([] for nowhere but the API).
    destinations       TEXT NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('active', 'paused', 'deleted')),
    created_at         {{timestamp}} NOT NULL,
    updated_at         {{timestamp}} NOT NULL,
    deleted_at         {{timestamp}}
);
CREATE INDEX kadu_tasks_list ON kadu_tasks (organization_id, status, id);
-- The scheduler: active tasks with a schedule, across organizations.
CREATE INDEX kadu_tasks_scheduled ON kadu_tasks (status, schedule_cron);

CREATE TABLE kadu_executions (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    task_id           TEXT NOT NULL REFERENCES kadu_tasks (id) ON DELETE CASCADE,
    -- manual (a person through the API or MCP), schedule, api (a token
    -- with no person behind it).
    trigger_kind      TEXT NOT NULL CHECK (trigger_kind IN ('manual', 'schedule', 'api')),
    -- The person it runs as: who started it, or the task's owner for the
    -- schedule (NULL only for a token with no person behind it).
    triggered_by      TEXT,
    status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'waiting_input', 'waiting_approval',
                          'succeeded', 'failed', 'canceled', 'timed_out', 'cost_exceeded')),
    -- The model it runs with, fixed when queued (NULL: a workflow).
    model             TEXT,
    -- JSON: the caller's input, and the ids of the files it gave.
    input             TEXT NOT NULL,
    input_file_ids    TEXT NOT NULL,
    -- The most it may cost, fixed when queued; what it has cost so far.
    max_cost_cents    BIGINT NOT NULL,
    cost_cents        BIGINT NOT NULL,
    tokens_in         BIGINT NOT NULL,
    tokens_out        BIGINT NOT NULL,
    tokens_cached     BIGINT NOT NULL,
    step_count        INTEGER NOT NULL,
    -- JSON: the result, when it ended with one.
    output            TEXT,
    -- Why it failed (a lower-case code and a message for people).
    error_code        TEXT,
    error_message     TEXT,
    -- JSON: what a waiting execution waits for (the question, the call to
    -- approve); NULL otherwise.
    waiting           TEXT,
    -- JSON: the runtime's own state to resume from after a wait.
    checkpoint        TEXT,
    -- The productkit/approval approval a waiting_approval execution waits on.
    approval_id       TEXT,
    -- The schedule tick that queued it.
    tick_at           {{timestamp}},
    started_at        {{timestamp}},
    finished_at       {{timestamp}},
    -- When the current state must end: running → timed_out, waiting_* → failed.
    deadline          {{timestamp}},
    created_at        {{timestamp}} NOT NULL,
    updated_at        {{timestamp}} NOT NULL
);
CREATE INDEX kadu_executions_list ON kadu_executions (organization_id, id);
CREATE INDEX kadu_executions_task ON kadu_executions (organization_id, task_id, status, id);
CREATE INDEX kadu_executions_status ON kadu_executions (organization_id, status, id);
-- The timeouts sweep: executions past their deadline, across organizations.
CREATE INDEX kadu_executions_deadline ON kadu_executions (status, deadline);

CREATE TABLE kadu_execution_steps (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    execution_id    TEXT NOT NULL REFERENCES kadu_executions (id) ON DELETE CASCADE,
    -- 1, 2, … in the order the steps began.
    seq             INTEGER NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('llm', 'tool_call', 'message')),
    tool_name       TEXT,
    -- JSON: the call's arguments, secrets redacted.
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
CREATE UNIQUE INDEX kadu_execution_steps_seq ON kadu_execution_steps (execution_id, seq);

-- What each organization's executions cost per calendar month (UTC),
-- written in the transaction of the step that cost it.
CREATE TABLE kadu_monthly_usage (
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    -- YYYY-MM.
    month           TEXT NOT NULL,
    cost_cents      BIGINT NOT NULL,
    tokens_in       BIGINT NOT NULL,
    tokens_out      BIGINT NOT NULL,
    tokens_cached   BIGINT NOT NULL,
    executions      INTEGER NOT NULL,
    updated_at      {{timestamp}} NOT NULL,
    PRIMARY KEY (organization_id, month)
);

-- One row per scheduled instant of a task: the primary key is what makes
-- replicas ticking together queue exactly one execution per tick.
CREATE TABLE kadu_schedule_ticks (
    task_id         TEXT NOT NULL REFERENCES kadu_tasks (id) ON DELETE CASCADE,
    tick            {{timestamp}} NOT NULL,
    organization_id TEXT NOT NULL,
    -- queued (execution_id is its execution) or skipped (reason says why).
    outcome         TEXT NOT NULL CHECK (outcome IN ('queued', 'skipped')),
    execution_id    TEXT,
    reason          TEXT,
    created_at      {{timestamp}} NOT NULL,
    PRIMARY KEY (task_id, tick)
);

-- +goose Down
DROP TABLE kadu_schedule_ticks;
DROP TABLE kadu_monthly_usage;
DROP TABLE kadu_execution_steps;
DROP TABLE kadu_executions;
DROP TABLE kadu_tasks;
