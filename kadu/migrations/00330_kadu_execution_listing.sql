-- Kadu: kadu_executions_list reads a page in index order at any size
-- (docs/decisions.md, "Listings at scale"). 00300 had an index for no
-- filter, for status and for task with status; a task alone (the most
-- common filter: one task's runs) and trigger alone had none, so
-- PostgreSQL read all of a task's executions and sorted them. Trigger
-- together with another filter reads that filter's index and checks the
-- trigger row by row.

-- +goose Up
CREATE INDEX kadu_executions_task_list ON kadu_executions (organization_id, task_id, id);
CREATE INDEX kadu_executions_trigger ON kadu_executions (organization_id, trigger_kind, id);

-- +goose Down
DROP INDEX kadu_executions_trigger;
DROP INDEX kadu_executions_task_list;
