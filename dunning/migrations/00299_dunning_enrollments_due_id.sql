-- Dunning: the step runner reads the due enrollments after a cursor
-- (next_run_at, id) within a run, so each batch starts where the last one
-- ended instead of walking past the entries of every enrollment the run
-- has moved on (on PostgreSQL they stay in the index until VACUUM:
-- docs/performance.md "The step runner at scale"). The index gains id.

-- +goose Up
DROP INDEX dunning_enrollments_due;
CREATE INDEX dunning_enrollments_due ON dunning_enrollments (status, next_run_at, id);

-- +goose Down
DROP INDEX dunning_enrollments_due;
CREATE INDEX dunning_enrollments_due ON dunning_enrollments (status, next_run_at);
