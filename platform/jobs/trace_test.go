package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/trace"

	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/tracing/tracingtest"
)

// tracedArgs is a job that reads the database, so its attempt has a
// query under it.
type tracedArgs struct {
	Token string `json:"token"`
}

func (tracedArgs) Kind() string { return "jobs_test.traced" }

type tracedWorker struct {
	river.WorkerDefaults[tracedArgs]
	db *store.DB
}

func (w *tracedWorker) Work(ctx context.Context, job *river.Job[tracedArgs]) error {
	var n int
	return w.db.Get(ctx, &n, `SELECT COUNT(*) FROM river_job WHERE id = ?`, job.ID)
}

// runTraceChild is a worker process with tracing on: it works traced
// jobs, each span sent to the parent's collector as it ends, until it is
// killed.
func runTraceChild(ctx context.Context, cfg childConfig) int {
	tp, err := tracingtest.ExportTo(cfg.Collector, "worker-process")
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	db, err := store.OpenWith(ctx, cfg.DatabaseURL, store.Options{Tracer: tp})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	q, err := New(ctx, db, Config{Work: true, PollInterval: 50 * time.Millisecond, Tracer: tp, leaderless: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	AddWorker(q, &tracedWorker{db: db})
	if err := q.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	fmt.Println("working")
	select {}
}

// TestTracesAcrossProcesses: a job enqueued inside a trace by one process
// (an API replica, serve --jobs=off) and worked by another (a worker) is
// in the enqueuer's trace: the attempt's CONSUMER span, exported by the
// worker, is a child of the PRODUCER span that enqueued it — and links to
// it — through the trace context River keeps in the job's metadata; the
// worker's query hangs under the attempt.
func TestTracesAcrossProcesses(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			col := tracingtest.NewCollector(t)
			tp := col.Provider(t)
			dbURL := storetest.URL(t, engine)
			db, err := store.OpenWith(ctx, dbURL, store.Options{Tracer: tp})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			api, err := New(ctx, db, Config{Tracer: tp, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			AddWorker(api, &tracedWorker{db: db})
			childproc.Start(t, childEnv, childConfig{DatabaseURL: dbURL, Mode: "trace", Collector: col.URL})

			rctx, request := tp.Tracer("test").Start(ctx, "POST /request", trace.WithSpanKind(trace.SpanKindServer))
			if _, err := api.Enqueue(rctx, tracedArgs{Token: "t1"}, nil); err != nil {
				t.Fatal(err)
			}
			request.End()
			traceID := request.SpanContext().TraceID().String()

			spans := col.Wait(t, 30*time.Second, func(s []tracingtest.Span) bool {
				for _, w := range tracingtest.All(s, "river.work/jobs_test.traced") {
					for _, q := range s {
						if q.ParentID == w.SpanID && q.Attrs["db.system.name"] != "" {
							return true
						}
					}
				}
				return false
			})
			tr := tracingtest.InTrace(spans, traceID)
			t.Logf("a job enqueued by one process and worked by another (%s):\n%s", engine, tracingtest.Tree(tr))
			insert := tracingtest.Find(t, tr, "river.insert_many")
			work := tracingtest.Find(t, tr, "river.work/jobs_test.traced")
			if insert.Service == work.Service || work.Service != "worker-process" {
				t.Fatalf("both spans from one process: %q and %q", insert.Service, work.Service)
			}
			if insert.ParentID != request.SpanContext().SpanID().String() || insert.Kind != "PRODUCER" {
				t.Fatalf("insert span: %+v", insert)
			}
			if work.ParentID != insert.SpanID || work.Kind != "CONSUMER" || len(work.Links) != 1 || work.Links[0] != traceID+"/"+insert.SpanID {
				t.Fatalf("work span: parent %s (want %s), links %v", work.ParentID, insert.SpanID, work.Links)
			}
		})
	}
}
