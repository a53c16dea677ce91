-- Dunning: collection plans (réguas), their steps, and the enrollment of a
-- charge in a plan with where it is in it.

-- +goose Up
CREATE TABLE dunning_plans (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    external_id     TEXT,
    name            TEXT NOT NULL,
    description     TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'archived')),
    created_at      {{timestamp}} NOT NULL,
    updated_at      {{timestamp}} NOT NULL,
    deleted_at      {{timestamp}}
);
CREATE UNIQUE INDEX dunning_plans_external_id_key ON dunning_plans (organization_id, external_id) WHERE external_id IS NOT NULL AND deleted_at IS NULL;
CREATE INDEX dunning_plans_list ON dunning_plans (organization_id, status, id);

CREATE TABLE dunning_plan_steps (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL,
    plan_id           TEXT NOT NULL REFERENCES dunning_plans (id) ON DELETE CASCADE,
    -- Relative to the charge's due date: -5, 0, +3, +30.
    offset_days       INTEGER NOT NULL,
    -- 'HH:MM' in the organization's timezone.
    send_time         TEXT NOT NULL,
    channel           TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
    action            TEXT NOT NULL CHECK (action IN ('notify', 'report_credit_bureau', 'protest', 'offer_agreement')),
    subject           TEXT,
    template          TEXT NOT NULL,
    requires_approval INTEGER NOT NULL,
    business_days     INTEGER NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    created_at        {{timestamp}} NOT NULL,
    updated_at        {{timestamp}} NOT NULL,
    deleted_at        {{timestamp}}
);
CREATE INDEX dunning_plan_steps_plan ON dunning_plan_steps (plan_id, offset_days, send_time, id);

CREATE TABLE dunning_enrollments (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    charge_id       TEXT NOT NULL REFERENCES dunning_charges (id) ON DELETE CASCADE,
    plan_id         TEXT NOT NULL REFERENCES dunning_plans (id),
    status          TEXT NOT NULL CHECK (status IN ('active', 'completed', 'stopped')),
    -- The next step to run and when; NULL once none is left.
    next_step_id    TEXT,
    next_run_at     {{timestamp}},
    -- Steps already past when the charge was enrolled (never sent late).
    skipped_past    INTEGER NOT NULL,
    started_at      {{timestamp}} NOT NULL,
    stopped_at      {{timestamp}},
    -- paid, canceled, archived, written_off, in_agreement, unenrolled, plan_archived.
    stopped_reason  TEXT,
    created_at      {{timestamp}} NOT NULL,
    updated_at      {{timestamp}} NOT NULL
);
CREATE UNIQUE INDEX dunning_enrollments_charge_plan ON dunning_enrollments (charge_id, plan_id);
-- The step runner: active enrollments whose next step is due.
CREATE INDEX dunning_enrollments_due ON dunning_enrollments (status, next_run_at);

-- +goose Down
DROP TABLE dunning_enrollments;
DROP TABLE dunning_plan_steps;
DROP TABLE dunning_plans;
