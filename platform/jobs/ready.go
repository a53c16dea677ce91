package jobs

import (
	"context"
	"errors"
	"fmt"
)

// Ready reports whether the queue can take and run jobs (readiness probe).
//
// It fails, with an error that names the problem, while the database does
// not answer, while River's schema is behind the version this binary needs
// (River's tables missing or an older version: run the migrations), before
// a working queue has started, and from the moment Stop begins, so a
// draining replica leaves the load balancer before its workers are gone.
// An insert-only queue is ready without Start.
func (q *Queue) Ready(ctx context.Context) error {
	q.mu.Lock()
	st := q.state
	q.mu.Unlock()
	switch {
	case st == created && q.cfg.Work:
		return errors.New("jobs: not started")
	case st == stopping:
		return errors.New("jobs: stopping")
	case st == stopped:
		return errors.New("jobs: stopped")
	}
	if err := q.db.Ping(ctx); err != nil {
		return fmt.Errorf("jobs: database %s does not answer: %w", q.db, err)
	}
	v, err := q.schemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("jobs: River's schema on %s is not migrated: %w", q.db, err)
	}
	if v < q.latest {
		return fmt.Errorf("jobs: River's schema on %s is at version %d, this binary needs %d: run the migrations", q.db, v, q.latest)
	}
	return nil
}

// schemaVersion is the newest River migration applied to the database.
func (q *Queue) schemaVersion(ctx context.Context) (int, error) {
	var v int
	err := q.db.Get(ctx, &v, "SELECT COALESCE(MAX(version), 0) FROM "+q.table("river_migration")+" WHERE line = 'main'")
	return v, err
}

// table is the name of one of River's tables as River's own queries spell
// it: qualified by the schema on PostgreSQL, bare on SQLite.
func (q *Queue) table(name string) string {
	if q.schema == "" {
		return name
	}
	return `"` + q.schema + `".` + name
}
