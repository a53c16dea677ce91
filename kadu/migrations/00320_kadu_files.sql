-- Kadu: files an organization uploads for its executions and the files
-- executions produce (docs/decisions.md "Kadu: files, results and webhook
-- rotation"). The bytes live in the blob bucket (platform/blob) under
-- storage_key; the row says what they are and how far the upload went.

-- +goose Up
CREATE TABLE kadu_files (
    id                TEXT PRIMARY KEY,
    organization_id   TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    -- input: uploaded by a person for a run; output: written by an execution.
    purpose           TEXT NOT NULL CHECK (purpose IN ('input', 'output')),
    filename          TEXT NOT NULL,
    -- The declared type, without parameters (text/csv).
    content_type      TEXT NOT NULL,
    -- The declared size: the upload may not exceed it, the confirmation
    -- requires it exactly.
    byte_size         BIGINT NOT NULL,
    -- Lower-case hex; NULL when the uploader declared none (an output
    -- file's is always computed).
    sha256            TEXT,
    status            TEXT NOT NULL CHECK (status IN ('pending_upload', 'ready', 'rejected', 'expired', 'deleted')),
    rejection_reason  TEXT,
    -- none, uploading (a PUT is streaming), uploaded: the product's own
    -- upload URL takes one body, once.
    upload_state      TEXT NOT NULL CHECK (upload_state IN ('none', 'uploading', 'uploaded')),
    storage_key       TEXT NOT NULL,
    -- The execution that wrote an output file (NULL for input files).
    execution_id      TEXT,
    -- The person who created the slot (NULL for an output file).
    created_by        TEXT,
    upload_expires_at {{timestamp}},
    confirmed_at      {{timestamp}},
    created_at        {{timestamp}} NOT NULL,
    updated_at        {{timestamp}} NOT NULL,
    deleted_at        {{timestamp}}
);
CREATE INDEX kadu_files_list ON kadu_files (organization_id, status, id);
-- The expiry sweep: pending slots past their time, across organizations.
CREATE INDEX kadu_files_pending ON kadu_files (status, upload_expires_at);
-- An execution's output files, one per name.
CREATE UNIQUE INDEX kadu_files_outputs ON kadu_files (execution_id, filename);

-- +goose Down
DROP TABLE kadu_files;
