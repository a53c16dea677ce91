-- Kobana Autonomous Inbox, configuration: the Inbox's settings of each
-- workspace (usage limits and counters), its agents, and its inboxes (the
-- receiving addresses). Every row carries organization_id and workspace_id;
-- every query filters on both. Deleting is soft (deleted_at): a deleted row
-- answers 404 and frees its external_id and address, and the purge job
-- removes it after the retention period.
--
-- JSON is TEXT; booleans are INTEGER 0/1 (one spelling on both engines).

-- +goose Up
CREATE TABLE inbox_workspace_settings (
    workspace_id         TEXT PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    organization_id      TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    -- kobana_app, kobana_billing, kobana_autonomous_inbox, kobana_agent,
    -- kobana_finance, kobana_legal, kobana_team
    source               TEXT NOT NULL,
    -- BRL; NULL: no limit.
    monthly_cost_limit   DOUBLE PRECISION,
    monthly_emails_limit INTEGER,
    -- Counters of the current month (usage_month, 'YYYY-MM' in UTC); the
    -- monthly reset job and any write in a new month start them at zero.
    usage_month          TEXT NOT NULL,
    monthly_cost_used    DOUBLE PRECISION NOT NULL,
    monthly_emails_used  INTEGER NOT NULL,
    custom_metadata      TEXT NOT NULL,
    updated_at           {{timestamp}} NOT NULL
);

CREATE TABLE inbox_agents (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workspace_id    TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    external_id     TEXT NOT NULL,
    label           TEXT NOT NULL,
    llm_model       TEXT NOT NULL,
    system_message  TEXT NOT NULL,
    skills_repo     TEXT,
    created_at      {{timestamp}} NOT NULL,
    updated_at      {{timestamp}} NOT NULL,
    deleted_at      {{timestamp}}
);
CREATE UNIQUE INDEX inbox_agents_external_id_key
    ON inbox_agents (organization_id, workspace_id, external_id) WHERE deleted_at IS NULL;

CREATE TABLE inboxes (
    id                          TEXT PRIMARY KEY,
    organization_id             TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workspace_id                TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    external_id                 TEXT NOT NULL,
    agent_id                    TEXT REFERENCES inbox_agents (id),
    label                       TEXT NOT NULL,
    -- The receiving address, lower-cased; unique among live inboxes of
    -- every organization (mail for it must reach exactly one inbox).
    email                       TEXT NOT NULL,
    status                      TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    -- JSON array of sender addresses or @domains allowed to send; empty:
    -- anyone.
    allowed_recipients          TEXT NOT NULL,
    -- JSON array of filters (see inbox/screening.go).
    filters                     TEXT NOT NULL,
    attachments_allow           INTEGER NOT NULL,
    attachments_max_file_number INTEGER,
    attachments_max_file_size   BIGINT,
    attachments_max_total_size  BIGINT,
    created_at                  {{timestamp}} NOT NULL,
    updated_at                  {{timestamp}} NOT NULL,
    deleted_at                  {{timestamp}}
);
CREATE UNIQUE INDEX inboxes_external_id_key
    ON inboxes (organization_id, workspace_id, external_id) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX inboxes_email_key ON inboxes (email) WHERE deleted_at IS NULL;
CREATE INDEX inboxes_workspace_idx ON inboxes (organization_id, workspace_id, id);

-- +goose Down
DROP TABLE inboxes;
DROP TABLE inbox_agents;
DROP TABLE inbox_workspace_settings;
