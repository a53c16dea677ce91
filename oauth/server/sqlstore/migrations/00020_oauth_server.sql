-- The built-in authorization server (oauth/server): clients registered
-- with Dynamic Client Registration, the records of grants (authorization
-- codes, PKCE challenges, access and refresh tokens) and the browser
-- sessions of its sign-in and consent pages.
--
-- No token is stored: a record is keyed by the SHA-256 of its token, so a
-- copy of these tables redeems nothing. Lists and the serialized grant are
-- JSON in TEXT columns, read only by Go.

-- +goose Up
CREATE TABLE oauth_clients (
    id                         TEXT PRIMARY KEY,
    -- hex SHA-256 of the client secret; NULL for a public client.
    secret_hash                TEXT,
    name                       TEXT NOT NULL,
    redirect_uris              TEXT NOT NULL,
    grant_types                TEXT NOT NULL,
    response_types             TEXT NOT NULL,
    token_endpoint_auth_method TEXT NOT NULL,
    -- The registration response as returned (without the secret).
    metadata                   TEXT NOT NULL,
    created_at                 {{timestamp}} NOT NULL
);

CREATE TABLE oauth_grant_records (
    -- code, pkce, access or refresh.
    kind       TEXT NOT NULL,
    -- base64url SHA-256 of the token.
    signature  TEXT NOT NULL,
    -- The grant: shared by the code and every token issued from it, so
    -- revocation and refresh-token reuse detection reach them all.
    request_id TEXT NOT NULL,
    client_id  TEXT NOT NULL,
    subject    TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at {{timestamp}} NOT NULL,
    expires_at {{timestamp}} NOT NULL,
    -- Set when a code is exchanged, a refresh token rotated, or the grant
    -- revoked; the row stays until it expires so a second use is seen.
    revoked_at {{timestamp}},
    PRIMARY KEY (kind, signature)
);
CREATE INDEX oauth_grant_records_request_idx ON oauth_grant_records (request_id, kind);
CREATE INDEX oauth_grant_records_expires_idx ON oauth_grant_records (expires_at);

CREATE TABLE oauth_browser_sessions (
    -- base64url SHA-256 of the cookie's value.
    id_hash          TEXT PRIMARY KEY,
    -- The authorization server (product listener) the session is for.
    issuer           TEXT NOT NULL,
    -- NULL until the person signs in.
    user_id          TEXT REFERENCES users (id) ON DELETE CASCADE,
    email            TEXT NOT NULL,
    -- hex key of the session's per-form CSRF tokens.
    csrf_secret      TEXT NOT NULL,
    created_at       {{timestamp}} NOT NULL,
    authenticated_at {{timestamp}},
    expires_at       {{timestamp}} NOT NULL
);
CREATE INDEX oauth_browser_sessions_expires_idx ON oauth_browser_sessions (expires_at);
CREATE INDEX oauth_browser_sessions_user_idx ON oauth_browser_sessions (user_id);

-- +goose Down
DROP TABLE oauth_browser_sessions;
DROP TABLE oauth_grant_records;
DROP TABLE oauth_clients;
