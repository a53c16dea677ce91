-- Approvals of destructive MCP tool calls (platform/approval): a client
-- that cannot confirm a destructive call in the chat gets a link to a page
-- of the product where the person who made the call sees exactly what will
-- run and chooses Continuar or Cancelar. The row is the pending call and,
-- once decided, its outcome.
--
-- It keeps what running the call later needs — who (the identity the
-- access token carried: issuer, subject, organization, person, client,
-- scopes, workspace, audience), what (the tool and its canonical
-- arguments) — and never the token itself. The person's role is read
-- again when the call runs.
--
-- status moves only forward, each step one conditional UPDATE, so a call
-- runs at most once however many clicks and retries race:
--   pending -> approved -> running -> succeeded | failed
--   pending -> cancelled            (Cancelar, or the client declined)
--   pending -> expired              (past expires_at, nothing ran)

-- +goose Up
CREATE TABLE approvals (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- hex SHA-256 of the caller's principal as the MCP endpoint names it
    -- (issuer, subject and organization), what its requestState is bound to.
    principal_hash  TEXT NOT NULL,
    issuer          TEXT NOT NULL,
    subject         TEXT NOT NULL,
    email           TEXT NOT NULL,
    client_id       TEXT NOT NULL,
    -- Space-separated OAuth scopes of the token that made the call.
    scopes          TEXT NOT NULL,
    -- '' when the token was bound to no workspace.
    workspace_id    TEXT NOT NULL,
    audience        TEXT NOT NULL,
    tool            TEXT NOT NULL,
    -- The arguments as RFC 8785 canonical JSON: exactly what will run.
    arguments       TEXT NOT NULL,
    -- What the call will do, naming its target (mcp.Tool.Confirm).
    message         TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'running', 'succeeded', 'failed', 'cancelled', 'expired')),
    -- The tool's answer once it ran: the JSON array of its content blocks
    -- ('' before).
    result          TEXT NOT NULL,
    created_at      {{timestamp}} NOT NULL,
    expires_at      {{timestamp}} NOT NULL,
    decided_at      {{timestamp}},
    started_at      {{timestamp}},
    finished_at     {{timestamp}}
);
CREATE INDEX approvals_organization_idx ON approvals (organization_id, created_at);
CREATE INDEX approvals_user_idx ON approvals (user_id, created_at);

-- +goose Down
DROP TABLE approvals;
