package jobs

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// BenchmarkEnqueueToStart measures how long a job enqueued in a committed
// transaction (EnqueueTx, as the products enqueue) waits before a worker of
// the same process starts it, with the default poll interval (1 s), one job
// at a time, on each engine; it reports the p50 and p99 (docs/performance.md,
// "Performance of the signed-in path"). Run on demand:
//
//	go test ./platform/jobs -run '^$' -bench EnqueueToStart -benchtime 50x
func BenchmarkEnqueueToStart(b *testing.B) {
	for _, engine := range storetest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			db := storetest.Open(b, engine)
			q, err := New(context.Background(), db, Config{Work: true, Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			w := newRecordWorker()
			AddWorker(q, w)
			if err := q.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_ = q.Stop(ctx)
			})
			time.Sleep(200 * time.Millisecond) // the listener connects
			var waits []time.Duration
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				err := db.WithTx(context.Background(), func(tx *store.Tx) error {
					_, err := q.EnqueueTx(context.Background(), tx, recordArgs{Token: "t"}, nil)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				select {
				case <-w.ran:
				case <-time.After(wait):
					b.Fatal("the job never started")
				}
				waits = append(waits, time.Since(start))
			}
			slices.Sort(waits)
			b.ReportMetric(float64(waits[len(waits)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(waits[min(len(waits)-1, len(waits)*99/100)].Microseconds())/1000, "p99-ms")
		})
	}
}
