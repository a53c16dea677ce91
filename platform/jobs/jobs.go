package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
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
	// cannot notify them (default 1 s on SQLite, 100 ms on PostgreSQL; at
	// least MinPollInterval; tests set less). On PostgreSQL it bounds how
	// long a job no notification announced waits to be picked up.
	PollInterval time.Duration
	// JobTimeout bounds a job whose worker's Timeout returns zero (default
	// DefaultJobTimeout, one minute): its context is cancelled then. Every
	// job has a bound: a job without one could never be told from a job
	// whose process died, so it could never be rescued.
	JobTimeout time.Duration
	// RescueAfter is how long a job may stay running before it counts as
	// stuck — its process died (kill -9, a lost machine) or it ignores its
	// context — and the leader puts it back to be retried by another
	// worker (default DefaultRescueAfter, five minutes; River's own default
	// is an hour). It must be longer than every job kind's timeout, so a
	// job that is still working is never rescued: New checks it against
	// JobTimeout, Start against every registered worker's Timeout. River
	// looks for stuck jobs every 30 s, so a dead replica's jobs run again
	// within RescueAfter plus about half a minute (plus the election of a
	// new leader, up to about 20 s, when the dead replica was the leader).
	// `serve` and `worker` should expose it as --job-rescue-after.
	RescueAfter time.Duration
	// MaxRescues is how many times a job may be rescued (its attempt died
	// with its process, or outlived RescueAfter) before the queue
	// quarantines it instead of running it again (default
	// DefaultMaxRescues, 2; negative: never). The count is read from the
	// errors River's rescuer leaves in the job's row, so it holds across
	// processes and restarts (quarantine.go).
	MaxRescues int
	// QueueWorkers overrides how many of this process's workers a queue
	// gets (QueueDefault, QueueDocuments, QueueExecutions, QueueInbox); by
	// default Concurrency is split between them (queueWorkers).
	QueueWorkers map[string]int
	// OrganizationShare is how many jobs of one kind one organization may
	// run at once across replicas (kinds whose args are Organizational);
	// by default half of this process's workers of the kind's queue, at
	// least 1. A job over it is snoozed, without spending an attempt,
	// while another organization within its own share has a job of the
	// kind waiting; with none waiting it runs (share_waiting.go).
	OrganizationShare int
	// Logger receives the queue's logs.
	Logger *slog.Logger
	// Tracer, when set, traces jobs (trace.go): an enqueue is a PRODUCER
	// span that leaves its trace context in the job's metadata, and each
	// attempt a CONSUMER span in that same trace, in whichever process
	// works it. Nil (tracing off) adds nothing.
	Tracer trace.TracerProvider

	// leaderless keeps this queue out of the leader election (tests: a
	// worker process that is killed without having been the leader, so
	// the surviving queue leads at once instead of after the dead
	// leader's term runs out).
	leaderless bool
	// onlyQueues, when set, are the only queues this process works
	// (tests: a process that leads and rescues without fetching the jobs
	// it rescues).
	onlyQueues []string
}

// Queue is the job queue of one process: a River client over the
// project's database, its registered workers and periodic jobs, and the
// counters its Collector exports. Open one per process and share it
// between products.
type Queue struct {
	db      *store.DB
	cfg     Config
	log     *slog.Logger
	schema  string // River's Schema: the PostgreSQL schema, "" on SQLite
	client  *river.Client[*sql.Tx]
	workers *river.Workers
	stats   *counters
	// queueWorkers is how many workers each queue has here (riverConfig).
	queueWorkers map[string]int
	// listen holds River's LISTEN connection on PostgreSQL when working
	// (migrate.go); closed by Stop.
	listen *pgxpool.Pool

	latest int // the newest River schema version this binary knows

	mu       sync.Mutex
	state    state
	kinds    []string                  // registered job kinds, in order of registration
	timeouts []kindTimeout             // each kind's worker Timeout, read at Start
	hooks    map[string]quarantineHook // kinds whose worker is a Quarantiner
	orgKeys  map[string]orgKeyFunc     // kinds whose args are Organizational
	working  bool                      // the River client was started (Work and a worker)
	counted  chan struct{}             // closed when the event counter has drained
	stopDone chan struct{}             // closed when Stop has finished
}

// state is where a Queue is in its life: it only moves forward.
type state int

const (
	created  state = iota // New returned; workers may be added
	started               // Start returned nil
	stopping              // Stop began: no new work is fetched
	stopped               // Stop finished (or was called before Start)
)

// New opens the queue on db and brings River's own schema up to date.
// Register workers and periodic jobs, then Start.
//
// Jobs can be enqueued as soon as New returns, and still while and after
// the queue stops (they wait in the database for the next worker); with
// Config.Work they run here once Start is called. On PostgreSQL, replicas
// calling New together are serialised by an advisory lock while River's
// schema migrates (see riverschema.Migrate).
func New(ctx context.Context, db *store.DB, cfg Config) (*Queue, error) {
	if cfg.PollInterval == 0 {
		cfg.PollInterval = defaultPollInterval(db.Dialect())
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	schema, err := riverschema.Schema(ctx, db)
	if err != nil {
		return nil, err
	}
	if _, err := riverschema.Migrate(ctx, db, cfg.Logger); err != nil {
		return nil, err
	}
	latest, err := riverschema.Latest(db)
	if err != nil {
		return nil, err
	}
	q := &Queue{db: db, cfg: cfg, log: cfg.Logger, schema: schema, latest: latest, workers: river.NewWorkers(), stats: newCounters(),
		queueWorkers: queueWorkers(cfg.Concurrency, cfg.QueueWorkers), hooks: map[string]quarantineHook{}, orgKeys: map[string]orgKeyFunc{}}
	if q.listen, err = listenPool(ctx, db, cfg.Work); err != nil {
		return nil, err
	}
	if q.client, err = river.NewClient(driverFor(db, q.listen), q.riverConfig()); err != nil {
		q.closeListen()
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return q, nil
}

// Enqueue inserts a job in its own transaction. The args are stored as
// JSON (encoding/json), so their type must marshal and unmarshal
// losslessly; opts may be nil. It returns the job's id.
//
// Prefer EnqueueTx whenever the job is about a row being written: a job
// enqueued on its own can run before, or without, the row it refers to.
func (q *Queue) closeListen() {
	if q.listen != nil {
		q.listen.Close()
	}
}

// RescueAfter is how long a job of this queue may run before another
// process takes it over (Config.RescueAfter, defaults applied): work that
// runs as one of its jobs must fit in it, with room to record its outcome.
func (q *Queue) RescueAfter() time.Duration { return q.cfg.RescueAfter }

func (q *Queue) Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	if args == nil {
		return 0, errNilArgs
	}
	res, err := q.client.Insert(ctx, args, withQueue(args, opts))
	return insertResult(args, res, err)
}

// EnqueueTx inserts a job in the caller's transaction: the job exists
// exactly when the transaction commits.
//
// On PostgreSQL a job enqueued in a transaction is found by the next poll
// (PollInterval) rather than at once, since workers cannot be woken before
// the commit.
func (q *Queue) EnqueueTx(ctx context.Context, tx *store.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	if args == nil {
		return 0, errNilArgs
	}
	if tx == nil {
		return 0, errors.New("jobs: EnqueueTx with a nil transaction (use Enqueue)")
	}
	res, err := q.client.InsertTx(ctx, tx.SQL(), args, withQueue(args, opts))
	return insertResult(args, res, err)
}

// errNilArgs is what enqueuing without args gets (River would panic).
var errNilArgs = errors.New("jobs: enqueue with nil args")

// insertResult names the job kind in errors: River's own messages (an
// args type that does not marshal to JSON, a kind without a registered
// worker) do not always say which job it was.
func insertResult(args river.JobArgs, res *rivertype.JobInsertResult, err error) (int64, error) {
	if err != nil {
		return 0, fmt.Errorf("jobs: enqueue %s: %w", args.Kind(), err)
	}
	return res.Job.ID, nil
}
