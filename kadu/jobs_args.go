package kadu

import "github.com/riverqueue/river"

// runExecutionKind is the River job kind that carries an execution from
// queued to its end (the runtime's worker).
const runExecutionKind = "kadu.run_execution"

// runExecutionArgs are the arguments of a kadu.run_execution job: only
// the execution's id, everything else is read from its row when the job
// runs, so a retried job sees the execution as it is now.
type runExecutionArgs struct {
	ExecutionID string `json:"execution_id"`
}

// Kind implements river.JobArgs.
func (runExecutionArgs) Kind() string { return runExecutionKind }

// newRunExecutionWorker builds the worker of kadu.run_execution for a
// listener's service: the runtime's. registerJobs adds it to every queue,
// so every process knows the kind (platform/jobs refuses to enqueue one
// without a worker).
var newRunExecutionWorker func(s *service) river.Worker[runExecutionArgs]
