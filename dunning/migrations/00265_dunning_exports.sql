-- Dunning: CSV exports. A job writes the file in parts of at most
-- exportPartBytes (export_parts.go) as it reads the rows, so neither the
-- job nor the download ever holds the whole file (docs/decisions.md
-- "Dunning: documents and exports").

-- +goose Up
CREATE TABLE dunning_exports (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    resource        TEXT NOT NULL CHECK (resource IN ('charges', 'debtors', 'notifications', 'agreements')),
    -- JSON object: the list filters the export was asked with.
    filters         TEXT NOT NULL,
    -- ',' (RFC 4180) or ';' (Brazilian spreadsheets).
    separator       TEXT NOT NULL CHECK (separator IN (',', ';')),
    status          TEXT NOT NULL CHECK (status IN ('generating', 'ready', 'failed')),
    -- The day ('YYYY-MM-DD', the organization's zone) amounts are for.
    amounts_on      TEXT NOT NULL,
    row_count       BIGINT,
    byte_size       BIGINT,
    error           TEXT,
    created_by      TEXT NOT NULL,
    created_at      {{timestamp}} NOT NULL,
    updated_at      {{timestamp}} NOT NULL,
    ready_at        {{timestamp}}
);
CREATE INDEX dunning_exports_list ON dunning_exports (organization_id, created_at);

CREATE TABLE dunning_export_parts (
    export_id TEXT NOT NULL REFERENCES dunning_exports (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    data      {{bytes}} NOT NULL,
    PRIMARY KEY (export_id, seq)
);

-- +goose Down
DROP TABLE dunning_export_parts;
DROP TABLE dunning_exports;
