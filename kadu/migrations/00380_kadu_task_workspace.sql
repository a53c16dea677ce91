-- Kadu: the Inbox workspace a task's executions act in (docs/decisions.md
-- "Kadu: tasks bound to a workspace"). Every in-process call of the
-- task's executions carries it as the identity's workspace, as a token
-- bound to a workspace does; NULL: the organization's only workspace, and
-- a workspace-scoped tool refused with a clear error when it has several.

-- +goose Up
ALTER TABLE kadu_tasks ADD COLUMN workspace_id TEXT;

-- +goose Down
ALTER TABLE kadu_tasks DROP COLUMN workspace_id;
