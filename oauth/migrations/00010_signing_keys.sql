-- Signing keys of the built-in authorization server, shared by every
-- replica so that any of them verifies what another signed. The private
-- key is stored encrypted (AES-256-GCM under a key derived from the
-- deployment's secret), never in clear.

-- +goose Up
CREATE TABLE oauth_signing_keys (
    id         TEXT PRIMARY KEY,
    created_at {{timestamp}} NOT NULL,
    sealed_jwk TEXT NOT NULL
);

-- +goose Down
DROP TABLE oauth_signing_keys;
