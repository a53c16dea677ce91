-- Idempotency keys of API writes (platform/idempotency, used by package
-- rest): the first response to a POST, PUT or PATCH carrying
-- X-Idempotency-Key is kept per scope (a product and an organization) and
-- key, and replayed to retries of the same request. A row is claimed
-- in_flight by the request that inserted it (INSERT … ON CONFLICT DO
-- NOTHING, so replicas agree on one winner) and becomes done with the
-- response; an in_flight row whose lease ran out (its replica died) or a
-- done row past its 24 h may be taken over, and the purge deletes expired
-- rows.

-- +goose Up
CREATE TABLE idempotency_keys (
    scope            TEXT NOT NULL,
    key              TEXT NOT NULL,
    -- SHA-256 of the request: method, path, query, canonical body and the
    -- headers that select what it acts on.
    request_hash     TEXT NOT NULL,
    -- A random id of the request that holds the claim, so only it
    -- completes or releases the row.
    claim            TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
    response_status  INTEGER,
    -- JSON object of header name → values.
    response_headers TEXT,
    response_body    {{bytes}},
    created_at       {{timestamp}} NOT NULL,
    expires_at       {{timestamp}} NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
