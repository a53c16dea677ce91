-- Grants of the built-in authorization server (oauth/server) that were
-- revoked: at /revoke (of an access or a refresh token), or because a code
-- was exchanged twice or a retired refresh token presented again.
--
-- Access tokens are JWTs every resource server verifies on its own; each
-- carries its grant's id (the "gid" claim). The role lookup the resource
-- servers run on every request reads this table in the same query as the
-- person's membership, so a revoked grant's tokens are refused at once, on
-- every replica, before they expire. A row is needed only while an access
-- token issued before the revocation could still be accepted; it is
-- purged after expires_at with the grant records.

-- +goose Up
CREATE TABLE oauth_revoked_grants (
    -- fosite's request id: the grant, shared by every token issued from
    -- one authorization through any number of refreshes.
    grant_id   TEXT PRIMARY KEY,
    revoked_at {{timestamp}} NOT NULL,
    expires_at {{timestamp}} NOT NULL
);
CREATE INDEX oauth_revoked_grants_expires_idx ON oauth_revoked_grants (expires_at);

-- +goose Down
DROP TABLE oauth_revoked_grants;
