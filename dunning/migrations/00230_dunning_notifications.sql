-- Dunning: every message to a debtor (the notification log, the outbox of
-- the embedded default) and the approvals of steps that need a person.

-- +goose Up
CREATE TABLE dunning_notifications (
    id                  TEXT PRIMARY KEY,
    organization_id     TEXT NOT NULL,
    debtor_id           TEXT NOT NULL REFERENCES dunning_debtors (id),
    charge_id           TEXT REFERENCES dunning_charges (id),
    -- Set for a plan's step: (enrollment_id, step_id) sends at most once.
    enrollment_id       TEXT,
    step_id             TEXT,
    -- reminder (a plan's step), ad_hoc, prior_notice, resend.
    kind                TEXT NOT NULL,
    -- The notification this one resends.
    resend_of           TEXT,
    channel             TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp')),
    to_address          TEXT NOT NULL,
    subject             TEXT,
    body                TEXT NOT NULL,
    -- queued → sent → delivered | opened | bounced | failed; unknown when a
    -- crash left the provider's answer unknown (never resent by itself).
    status              TEXT NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'delivered', 'opened', 'bounced', 'failed', 'unknown')),
    provider            TEXT NOT NULL,
    provider_message_id TEXT,
    error               TEXT,
    queued_at           {{timestamp}} NOT NULL,
    sending_at          {{timestamp}},
    sent_at             {{timestamp}},
    delivered_at        {{timestamp}},
    failed_at           {{timestamp}},
    created_by          TEXT NOT NULL,
    created_at          {{timestamp}} NOT NULL,
    updated_at          {{timestamp}} NOT NULL
);
CREATE UNIQUE INDEX dunning_notifications_step_once ON dunning_notifications (enrollment_id, step_id) WHERE enrollment_id IS NOT NULL;
CREATE INDEX dunning_notifications_list ON dunning_notifications (organization_id, created_at, id);
CREATE INDEX dunning_notifications_charge ON dunning_notifications (organization_id, charge_id);
CREATE INDEX dunning_notifications_provider ON dunning_notifications (provider, provider_message_id);

-- A step that requires approval parks here until a person decides.
CREATE TABLE dunning_step_approvals (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    enrollment_id   TEXT NOT NULL REFERENCES dunning_enrollments (id) ON DELETE CASCADE,
    step_id         TEXT NOT NULL,
    charge_id       TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
    decided_by      TEXT,
    decided_at      {{timestamp}},
    note            TEXT,
    created_at      {{timestamp}} NOT NULL
);
CREATE UNIQUE INDEX dunning_step_approvals_once ON dunning_step_approvals (enrollment_id, step_id);
CREATE INDEX dunning_step_approvals_list ON dunning_step_approvals (organization_id, status, created_at);

-- +goose Down
DROP TABLE dunning_step_approvals;
DROP TABLE dunning_notifications;
