-- Kobana Autonomous Inbox: the month's usage counters of a workspace are
-- spread over slots, so e-mails arriving together do not wait for one
-- another. On PostgreSQL every intake used to update the one settings row
-- of its workspace, which held the row's lock through the commit's WAL
-- flush: the workspace's e-mails were stored one after another at the
-- speed of the disk's flush (docs/decisions.md, "Inbox intake on
-- PostgreSQL"). An intake or a run's cost now adds to one of a few slots
-- of the month (an upsert); a read of the settings adds the slots of the
-- settings row's usage_month to the row's own counters, which keep what
-- was counted before this migration (and are zeroed by the monthly reset,
-- which removes the earlier months' slots too).

-- +goose Up
CREATE TABLE inbox_usage_counts (
    workspace_id    TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    -- 'YYYY-MM' in UTC, as inbox_workspace_settings.usage_month.
    usage_month     TEXT NOT NULL,
    slot            INTEGER NOT NULL,
    emails          INTEGER NOT NULL,
    -- BRL, as monthly_cost_used.
    cost            DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (workspace_id, usage_month, slot)
);

-- +goose Down
DROP TABLE inbox_usage_counts;
