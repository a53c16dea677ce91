package kadu

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// The runtime (the engine that carries an execution from queued to its
// end) replaces this file: it sets newRunExecutionWorker to its worker.
// Until then a kadu.run_execution job leaves its execution queued, so the
// API around executions can be built and tested on its own.
func init() {
	newRunExecutionWorker = func(*service) river.Worker[runExecutionArgs] { return &pendingRunWorker{} }
}

// pendingRunWorker is the stand-in worker: it does nothing.
type pendingRunWorker struct {
	river.WorkerDefaults[runExecutionArgs]
}

// Timeout bounds the stand-in's nothing.
func (*pendingRunWorker) Timeout(*river.Job[runExecutionArgs]) time.Duration { return time.Second }

// Work leaves the execution as it is.
func (*pendingRunWorker) Work(context.Context, *river.Job[runExecutionArgs]) error { return nil }
