-- Identity: the tenants (organizations) and their workspaces, the people
-- who sign in (users) and the role each holds in an organization.
--
-- One file for both engines: ids are UUID text, {{timestamp}} is replaced
-- per engine (see dialectTokens in migrate.go), instants are written from
-- Go in UTC, never by a default. Every tenant table carries organization_id
-- and every query of one filters on it.

-- +goose Up
CREATE TABLE organizations (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at {{timestamp}} NOT NULL
);

CREATE TABLE workspaces (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    external_id     TEXT NOT NULL,
    label           TEXT NOT NULL,
    email_prefix    TEXT NOT NULL,
    created_at      {{timestamp}} NOT NULL,
    deleted_at      {{timestamp}}
);
-- An external id names one live workspace of its organization; deleting a
-- workspace (soft, deleted_at) frees its external id. The index also serves
-- the organization's listing of live workspaces.
CREATE UNIQUE INDEX workspaces_external_id_key
    ON workspaces (organization_id, external_id) WHERE deleted_at IS NULL;

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL,
    -- PHC-style argon2id string; NULL: no password sign-in.
    password_hash TEXT,
    name          TEXT NOT NULL,
    created_at    {{timestamp}} NOT NULL
);
-- Sign-in names are unique whatever their case. Emails are stored already
-- lower-cased by Go (which knows Unicode on both engines); this index keeps
-- rows written any other way from doubling an address.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    -- platform/identity.Roles; a new role needs a migration of this check.
    role            TEXT NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
    created_at      {{timestamp}} NOT NULL,
    PRIMARY KEY (user_id, organization_id)
);
CREATE INDEX memberships_organization_idx ON memberships (organization_id);

-- +goose Down
DROP TABLE memberships;
DROP TABLE users;
DROP TABLE workspaces;
DROP TABLE organizations;
