// Package jobs is the project's durable background job queue: River
// (github.com/riverqueue/river) on the same database as everything else —
// SQLite by default, PostgreSQL when replicas share one — so a job is
// enqueued in the same transaction as the row it is about, and survives a
// restart. Jobs run in the serving process by default, or only in separate
// worker processes at scale (Config.Work false on the API replicas).
//
// SKELETON: the API below is agreed; the implementation is being written.
package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Config configures a Queue.
type Config struct {
	// Work runs jobs in this process. False makes an insert-only queue
	// (API replicas when workers run as separate processes).
	Work bool
	// Concurrency is how many jobs run at once in this process (default 10).
	Concurrency int
	// PollInterval is how often workers look for new jobs when the engine
	// cannot notify them (default 1 s; tests set less).
	PollInterval time.Duration
	// Logger receives the queue's logs.
	Logger *slog.Logger
}

// Queue is the job queue of one process.
type Queue struct {
	db  *store.DB
	cfg Config
}

// New opens the queue on db and brings River's own schema up to date.
// Register workers and periodic jobs, then Start.
func New(ctx context.Context, db *store.DB, cfg Config) (*Queue, error) {
	return &Queue{db: db, cfg: cfg}, nil
}

// AddWorker registers the worker of one job kind. Call before Start.
func AddWorker[T river.JobArgs](q *Queue, w river.Worker[T]) {}

// AddPeriodic runs a job on a schedule (monthly usage reset, purge).
// Call before Start.
func (q *Queue) AddPeriodic(schedule river.PeriodicSchedule, construct func() (river.JobArgs, *river.InsertOpts), runOnStart bool) {
}

// Start starts working (when Config.Work) and allows Enqueue.
func (q *Queue) Start(ctx context.Context) error { return nil }

// Stop stops fetching new jobs and waits for running ones until ctx ends.
func (q *Queue) Stop(ctx context.Context) error { return nil }

// Enqueue inserts a job in its own transaction.
func (q *Queue) Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	return 0, nil
}

// EnqueueTx inserts a job in the caller's transaction: the job exists
// exactly when the transaction commits.
func (q *Queue) EnqueueTx(ctx context.Context, tx *store.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	return 0, nil
}

// Ready reports whether the queue can take and run jobs (readiness probe).
func (q *Queue) Ready(ctx context.Context) error { return nil }
