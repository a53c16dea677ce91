-- Kadu: the OAuth client whose call started an execution (kadu_tasks_run
-- through the API or the MCP endpoint), so the execution page can say who
-- or what started it by the client's registered name (docs/kadu.md "The
-- execution page"). NULL for a schedule's executions, and for those
-- queued before this column.

-- +goose Up
ALTER TABLE kadu_executions ADD COLUMN client_id TEXT;

-- +goose Down
ALTER TABLE kadu_executions DROP COLUMN client_id;
