// Package runtime is Kadu's workflow and agent runtime: the worker of
// kadu.run_execution, which carries an execution from queued to its end
// (docs/decisions.md "Kadu's runtime"). It sits between the API (package
// kadu, which builds it with New from plain Deps and reaches it through
// Worker, ApprovalOwners, ToolLookup and CompileWorkflow) and the rows
// (kadu/records, whose Machine is the one write path of statuses, steps
// and cost).
//
// Every step is recorded as started, committed, before it is done
// (records.Machine.BeginStep), and its outcome, cost and the runtime's
// Checkpoint — the workflow's results so far, the agent's conversation —
// are written in one transaction after it (records.Machine.FinishStep
// with the checkpoint), so the execution's row always says exactly which
// steps finished. A worker that dies leaves its job running in River;
// River rescues it (after --job-rescue-after) and the same job, on any
// worker, resumes from the checkpoint. A step found started without an
// outcome is never repeated blindly: a model call or a read-only tool is
// marked unknown and done again; any other tool call is marked unknown
// and the execution fails, saying so, because whether it took effect
// cannot be known.
//
// One job owns an execution while it runs: the checkpoint names the River
// job that moved it to running, and any other job that finds it running
// leaves it alone (a decision told twice, a stray job). A job works for at
// most Config.Slice before it snoozes (River runs it again at once), so no
// run of the job outlives its timeout, which must stay below
// --job-rescue-after.
//
// # Where to read
//
// The files are layered, each using only those below it:
//
//   - jobs.go, plan.go, bucket.go, tool_info.go, checkpoint.go, answer.go:
//     the job's arguments, the plan and price types, the bucket, what a
//     task knows of a tool, the checkpoint, a tool call's answer;
//   - config.go (Config, Deps, Limits, Provider), then runtime.go
//     (Runtime, New, one slice's run and how it ends);
//   - cost.go, calls.go (a call's recorded step), approvals.go, files.go
//     (the runtime's own file tools), tools.go (callTool, ToolLookup);
//   - step_failure.go, ask.go, foreach.go, workflow.go (workflow mode),
//     agent.go (agent mode);
//   - worker.go (RunExecution: take, decide, recover, run the mode) and
//     quarantine.go at the top.
package runtime
