// Package jobs is the project's durable background job queue: River
// (github.com/riverqueue/river) on the same database as everything else —
// SQLite by default, PostgreSQL when replicas share one — so a job is
// enqueued in the same transaction as the row it is about, and survives a
// restart. Jobs run in the serving process by default, or only in separate
// worker processes at scale (Config.Work false on the API replicas).
//
// # The model
//
// A job is a row in River's river_job table, holding its kind and its
// arguments as JSON (a type implementing river.JobArgs; it must survive
// encoding/json both ways). Wiring is: New (which migrates River's own
// tables), AddWorker for each kind and AddPeriodic for schedules, Start;
// Stop at shutdown.
//
//   - Same-transaction enqueue. EnqueueTx inserts the job with the
//     caller's *store.Tx: if the transaction rolls back there is no job,
//     if it commits the job exists. No outbox, no "row saved but job
//     lost", no "job ran before its row was visible".
//   - At least once. A job runs until its worker returns nil, is retried
//     with backoff when it returns an error (25 attempts by default, then
//     discarded), and may run again after a crash or when River rescues a
//     job that ran past its deadline. Workers must be idempotent, and make
//     calls to the outside world through Queue.Call (below).
//   - Timeouts and rescue. Every job has a timeout (its worker's Timeout,
//     else Config.JobTimeout, one minute) after which its context is
//     cancelled. A job whose process died (kill -9, a lost machine) stays
//     running in the database; the leader rescues it — puts it back to be
//     retried by any worker — once it has been running for
//     Config.RescueAfter (five minutes by default, always longer than
//     every kind's timeout, which Start checks), looking every 30 s.
//     kobana_jobs_rescued_total counts the rescued jobs where they run
//     again.
//   - Shutdown. Stop lets running jobs finish within its context (the
//     process's shutdown grace), then cancels them: a job that honours its
//     context goes back to the queue without spending an attempt and runs
//     again elsewhere; one that does not is rescued like a dead process's.
//   - Outbound calls. Queue.Call records a call as started, committed,
//     before making it, and its outcome after, in the job's own row; the
//     next run of a job that stopped in the middle finds the call started
//     without an outcome and records it as unknown. Its CallPolicy says
//     whether an unknown call is made again (ResendUnknown: receivers that
//     deduplicate) or never by itself (NeverResendUnknown: anything a
//     person receives).
//   - In-process or separate workers. With Config.Work the process runs
//     jobs (Concurrency at once) on River's default queue; without it the
//     queue only inserts. Any number of working processes can share one
//     PostgreSQL database: River locks each job for one of them. They
//     elect a leader that runs the periodic jobs and River's maintenance
//     (retries coming due, rescue of stuck jobs, deleting finished jobs
//     after 24 h, discarded ones after 7 days).
//   - Observability: Collector exports queue depth and outcome counters;
//     Ready is the readiness probe.
//
// # Engines
//
// Both engines use River through the project's own *sql.DB, so River's
// client is a river.Client[*sql.Tx] on either, and River's tables live
// beside the project's (on PostgreSQL in the current schema of the URL's
// search_path, named explicitly to River).
//
// PostgreSQL runs through riverdatabasesql; a working queue adds a pgx
// LISTEN connection of its own (riverdatabasesql.NewWithPgxListener), so a
// job enqueued by any process, in a transaction or not, wakes a worker
// through NOTIFY when it commits (BenchmarkEnqueueToStart: about 10 ms at
// the median; an enqueue within 2 ms of the previous notification — 100
// ms, River's default, in an insert-only process — sends none and may
// wait for the poll, PollInterval, default 100 ms there). An
// insert-only queue (--jobs=off) keeps no such connection. Leadership
// passes to another process up to a few seconds after a leader stops
// (about 15 s after one dies). River's migrations take no
// lock: New serialises them between replicas with an advisory lock.
//
// SQLite (riversqlite, which River still calls early-stage) works for a
// single node. It has no LISTEN/NOTIFY either: River polls an outbox
// table every 50 ms in each working process instead. SQLite has one
// writer at a time, so River's writes (fetching, completing, electing a
// leader) queue behind the application's transactions; the store's busy
// timeout (5 s) and BEGIN IMMEDIATE keep that from failing, but a
// transaction held open for long stalls the queue. River suggests a
// one-connection pool for SQLite; the project shares its 8-connection pool
// instead, which the busy timeout makes safe. Unique jobs work with the
// default UniqueOpts.ByState only (the advisory-lock path that custom
// states need exists on PostgreSQL alone). Several processes on one SQLite
// file work, but that is not a deployment the project supports.
package jobs
