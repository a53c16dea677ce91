package runtime

// RunExecutionKind is the River job kind that carries an execution from
// queued to its end (the runtime's worker).
const RunExecutionKind = "kadu.run_execution"

// RunExecutionArgs are the arguments of a kadu.run_execution job: only
// the execution's id, everything else is read from its row when the job
// runs, so a retried job sees the execution as it is now.
type RunExecutionArgs struct {
	ExecutionID string `json:"execution_id"`
}

// Kind implements river.JobArgs.
func (RunExecutionArgs) Kind() string { return RunExecutionKind }
