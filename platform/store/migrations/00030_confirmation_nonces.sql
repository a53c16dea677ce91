-- Confirmations of destructive MCP tools that were used (mcp.NonceStore):
-- each sealed requestState carries a nonce, and running the confirmed call
-- inserts it here, in the same transaction as the operation where the
-- product can, so a replayed or concurrent second retry finds it taken and
-- runs nothing. A row is needed only until its state expires (5 minutes);
-- expired rows are purged as new ones arrive.

-- +goose Up
CREATE TABLE confirmation_nonces (
    nonce      TEXT PRIMARY KEY,
    expires_at {{timestamp}} NOT NULL
);
CREATE INDEX confirmation_nonces_expires_at ON confirmation_nonces (expires_at);

-- +goose Down
DROP TABLE confirmation_nonces;
