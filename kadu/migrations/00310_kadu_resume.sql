-- Kadu: what the runtime resumes from, and where a schedule counts from.

-- +goose Up
-- The input a person gave (kadu_executions_continue) to a waiting_input
-- execution, JSON, until the runtime takes it.
ALTER TABLE kadu_executions ADD COLUMN resume_input TEXT;
-- The instant the task's schedule counts ticks from: when the schedule
-- was set or the task resumed, so ticks from before (or from while it was
-- paused) never run.
ALTER TABLE kadu_tasks ADD COLUMN schedule_since {{timestamp}};

-- +goose Down
ALTER TABLE kadu_tasks DROP COLUMN schedule_since;
ALTER TABLE kadu_executions DROP COLUMN resume_input;
