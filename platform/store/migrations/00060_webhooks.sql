-- Webhooks (platform/webhooks): how every product tells the outside world
-- what happened. A system event is stored once; each live, active webhook
-- of its workspace and product whose subscriptions match gets one delivery,
-- which the delivery job sends (signed), captures and retries.
--
-- One set of tables for every product: rows carry the product that owns
-- them, and every query filters on organization_id, workspace_id and
-- product. Deleting a webhook is soft (deleted_at): it answers 404, gets no
-- events and frees its external_id. JSON is TEXT.

-- +goose Up
CREATE TABLE webhooks (
    id                   TEXT PRIMARY KEY,
    organization_id      TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workspace_id         TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    product              TEXT NOT NULL,
    external_id          TEXT NOT NULL,
    -- NULL: every scope; else only events of this scope (the Inbox's
    -- inbox_id).
    scope_id             TEXT,
    label                TEXT NOT NULL,
    url                  TEXT NOT NULL,
    auth                 TEXT NOT NULL CHECK (auth IN ('none', 'basic', 'bearer', 'header')),
    -- Write-only: JSON of the credentials of auth ('' for none), sealed
    -- ("sealed:v1:…", AES-256-GCM) when the service has a sealing secret.
    credentials          TEXT NOT NULL,
    -- JSON array of slugs, "*" or "prefix.*".
    subscribed_events    TEXT NOT NULL,
    -- "whsec_…", sealed like credentials.
    signing_secret       TEXT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('active', 'inactive')),
    consecutive_failures INTEGER NOT NULL,
    created_at           {{timestamp}} NOT NULL,
    updated_at           {{timestamp}} NOT NULL,
    deleted_at           {{timestamp}}
);
CREATE UNIQUE INDEX webhooks_external_id_key
    ON webhooks (organization_id, workspace_id, product, external_id) WHERE deleted_at IS NULL;
-- Listing (by id: UUIDv7, time-ordered) and fan-out.
CREATE INDEX webhooks_workspace_idx ON webhooks (organization_id, workspace_id, product, id);

CREATE TABLE system_events (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workspace_id    TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    product         TEXT NOT NULL,
    slug            TEXT NOT NULL,
    scope_id        TEXT,
    subject_id      TEXT,
    -- The envelope {"event":{…},"created_at":…,"workspace_id":…,"data":…}.
    payload         TEXT NOT NULL,
    created_at      {{timestamp}} NOT NULL
);
CREATE INDEX system_events_workspace_idx ON system_events (organization_id, workspace_id, product, id);

CREATE TABLE webhook_deliveries (
    id               TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workspace_id     TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    product          TEXT NOT NULL,
    webhook_id       TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    system_event_id  TEXT NOT NULL REFERENCES system_events (id) ON DELETE CASCADE,
    event_slug       TEXT NOT NULL,
    replay_of        TEXT REFERENCES webhook_deliveries (id) ON DELETE SET NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
    -- Attempts made so far (0 before the first).
    attempt          INTEGER NOT NULL,
    -- The last attempt as captured: JSON objects of header → value, with
    -- the target's credentials masked.
    request_headers  TEXT NOT NULL,
    request_body     TEXT NOT NULL,
    response_status  INTEGER,
    response_headers TEXT,
    response_body    TEXT,
    error            TEXT,
    duration_ms      BIGINT,
    delivered_at     {{timestamp}},
    next_retry_at    {{timestamp}},
    created_at       {{timestamp}} NOT NULL,
    updated_at       {{timestamp}} NOT NULL
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (system_event_id);
CREATE INDEX webhook_deliveries_replay_idx ON webhook_deliveries (replay_of);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE system_events;
DROP TABLE webhooks;
