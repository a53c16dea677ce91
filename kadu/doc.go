// Package kadu is Kadu, the Kobana financial agent: tasks — workflows of
// tool calls into the other products, or agents — that run as the person
// who started them, within a monthly cost plan, stopping for that
// person's approval before anything destructive; their executions, input
// and output files, approvals and webhooks (docs/kadu.md, and
// docs/decisions.md from "Kadu: tasks, executions, costs and schedules").
// It serves the REST API at /api/v1 whose operations its MCP tools
// mirror, and the MCP catalog's resources and prompts.
//
// # Packages
//
// Kadu is layered; each package imports only those below it:
//
//   - kadu (this package): the API — operation declarations, their
//     handlers, the service they share —, the MCP catalog (resources,
//     prompts, completions), the product's Spec, settings and jobs;
//   - kadu/runtime: the workflow and agent runtime, the worker of
//     kadu.run_execution, built by newService from plain runtime.Deps and
//     reached through runtime.New, Worker, ApprovalOwners, ToolLookup and
//     CompileWorkflow;
//   - kadu/wflang: the workflow language (templates, conditions,
//     for_each, their budget), which the runtime compiles and evaluates;
//   - kadu/records: the rows, their org-scoped stores (the SQL of each
//     aggregate in its *_store.go) and records.Machine, the executions'
//     state machine and the one write path of statuses, steps and cost.
//
// Inside this package the files are layered too (no file uses a name of
// a file that, directly or not, uses one of its own): configuration,
// shapes and helpers at the bottom (config.go, delivery_mail.go,
// files_config.go, executions_json.go, api_errors.go, cron.go,
// workflow_check.go), then service.go, then each aggregate's
// service code and handlers (tasks.go, executions.go, files*.go, me.go,
// delivery.go, schedule.go, approvals_api.go), then the catalog
// (resources.go, prompts.go, files_resources.go, catalog.go) and, at the
// top, spec.go, which registers everything. What the API asks of the
// runtime (the tool lookup, the workflow check, the run worker) is set
// where the service is built (newService), never called up.
//
// # Where to start reading
//
// From a tool's name (docs/tools/kadu.md lists every tool with its
// handler): its operation declaration, the rest.Operation with that ID in
// the aggregate's registerX (kadu_tasks_update → registerTasks in
// tasks.go); its handler, the named method given to rest.Handle there
// (tasksAPI.update); the store it reads and writes through, in
// kadu/records (records.LockTask and records.UpdateTask in
// tasks_store.go). An execution's run continues in kadu/runtime at
// Runtime.RunExecution (worker.go).
package kadu
