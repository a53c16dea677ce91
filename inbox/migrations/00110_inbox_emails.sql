-- Kobana Autonomous Inbox, activity: every received e-mail (kept as it
-- arrived in inbox_email_raw, never altered), and every run of the
-- processing agent on one.
--
-- emails.status moves: received -> approved | rejected; approved ->
-- processing -> processed | failed; a reprocess puts any status back to
-- processing.

-- +goose Up
CREATE TABLE emails (
    id               TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workspace_id     TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    inbox_id         TEXT NOT NULL REFERENCES inboxes (id),
    agent_id         TEXT,
    -- The Message-ID header ('' when absent).
    message_id       TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('received', 'approved', 'rejected', 'processing', 'processed', 'failed')),
    subject          TEXT,
    from_address     TEXT NOT NULL,
    -- JSON arrays of addresses: envelope recipients (to), and the headers.
    to_addresses     TEXT NOT NULL,
    cc_addresses     TEXT NOT NULL,
    bcc_addresses    TEXT NOT NULL,
    header_to        TEXT NOT NULL,
    forwarded        INTEGER NOT NULL,
    forwarded_for    TEXT,
    rejection_reason TEXT,
    spam_verdict     TEXT,
    virus_verdict    TEXT,
    body_text        TEXT,
    body_html        TEXT,
    -- JSON array of {filename, content_type, size}.
    attachments      TEXT NOT NULL,
    raw_size         BIGINT NOT NULL,
    raw_sha256       TEXT NOT NULL,
    -- How the message arrived: smtp or http.
    intake           TEXT NOT NULL,
    -- JSON: the last processing result (agent output), '{}' before.
    agent_metadata   TEXT NOT NULL,
    custom_metadata  TEXT NOT NULL,
    last_error       TEXT,
    sent_at          {{timestamp}},
    received_at      {{timestamp}} NOT NULL,
    processed_at     {{timestamp}},
    created_at       {{timestamp}} NOT NULL,
    updated_at       {{timestamp}} NOT NULL,
    deleted_at       {{timestamp}}
);
CREATE INDEX emails_workspace_idx ON emails (organization_id, workspace_id, id);
CREATE INDEX emails_inbox_idx ON emails (organization_id, inbox_id, id);
CREATE INDEX emails_status_idx ON emails (organization_id, workspace_id, status, id);

CREATE TABLE inbox_email_raw (
    email_id TEXT PRIMARY KEY REFERENCES emails (id) ON DELETE CASCADE,
    raw      {{bytes}} NOT NULL
);

CREATE TABLE agent_runs (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workspace_id    TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    inbox_id        TEXT NOT NULL,
    agent_id        TEXT,
    email_id        TEXT NOT NULL REFERENCES emails (id) ON DELETE CASCADE,
    -- extractor or openai
    provider        TEXT NOT NULL,
    llm_model       TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('running', 'success', 'failed')),
    error           TEXT,
    input_tokens    INTEGER NOT NULL,
    output_tokens   INTEGER NOT NULL,
    cache_read      INTEGER NOT NULL,
    cache_write     INTEGER NOT NULL,
    cost_per_token  DOUBLE PRECISION NOT NULL,
    total_cost      DOUBLE PRECISION NOT NULL,
    duration_ms     BIGINT,
    -- JSON: the provider's output ('{}' while running or failed).
    output          TEXT NOT NULL,
    started_at      {{timestamp}} NOT NULL,
    finished_at     {{timestamp}}
);
CREATE INDEX agent_runs_workspace_idx ON agent_runs (organization_id, workspace_id, id);
CREATE INDEX agent_runs_email_idx ON agent_runs (organization_id, email_id, id);

-- +goose Down
DROP TABLE agent_runs;
DROP TABLE inbox_email_raw;
DROP TABLE emails;
