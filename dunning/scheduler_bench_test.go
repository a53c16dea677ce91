package dunning

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The scheduler's benchmarks run on demand, never in CI's test run:
//
//	go test ./dunning -run '^$' -bench 'StepRunner|Sweep' -benchtime 1x
//
// (KOBANA_TEST_ENGINES=sqlite or postgres narrows the engines.)

// benchBatch is how many due steps one iteration of BenchmarkStepRunner
// runs.
const benchBatch = 1000

// BenchmarkStepRunner measures how many due steps one worker process
// (the harness's queue, ten jobs at once) takes from due to sent through
// the outbox provider: the step runner writes each step's notification
// and enqueues its send in the step's own transaction, then the send jobs
// mark each one sending and sent. steps/s is the whole path; runner-steps/s
// the runner's part alone.
func BenchmarkStepRunner(b *testing.B) {
	for _, engine := range storetest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			db := storetest.Open(b, engine, Migrations)
			now := sp(2026, 3, 16, 12, 0)
			ne := startNotify(b, db, ledger.ChannelConfig{}, now)
			org := ne.Mine.ID
			ctx := context.Background()
			planID, stepID := store.NewID(), store.NewID()
			t0 := store.Now()
			if _, err := db.Exec(ctx, `INSERT INTO dunning_plans (id, organization_id, external_id, name, description, status, created_at, updated_at)
				VALUES (?, ?, NULL, 'Bench', '', 'active', ?, ?)`, planID, org, t0, t0); err != nil {
				b.Fatal(err)
			}
			if _, err := db.Exec(ctx, `INSERT INTO dunning_plan_steps (id, organization_id, plan_id, offset_days, send_time, channel, action, subject,
				template, requires_approval, business_days, status, created_at, updated_at)
				VALUES (?, ?, ?, 0, '10:00', 'sms', 'notify', NULL, '{{debtor.name}}: {{charge.updated_amount}} vence {{charge.due_date}}', 0, 0, 'active', ?, ?)`,
				stepID, org, planID, t0, t0); err != nil {
				b.Fatal(err)
			}
			due := sp(2026, 3, 16, 10, 0).UTC()
			var runner, total time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				benchEnrollments(b, db, org, planID, stepID, due, benchBatch)
				b.StartTimer()
				start := time.Now()
				k, err := ne.n.RunDue(ctx)
				if err != nil || k != benchBatch {
					b.Fatalf("runDue: %d %v", k, err)
				}
				runner += time.Since(start)
				ne.settle(b)
				total += time.Since(start)
			}
			b.StopTimer()
			steps := float64(benchBatch * b.N)
			b.ReportMetric(steps/total.Seconds(), "steps/s")
			b.ReportMetric(steps/runner.Seconds(), "runner-steps/s")
			var sent int
			_ = db.Get(ctx, &sent, `SELECT COUNT(*) FROM dunning_notifications WHERE status = 'sent'`)
			if sent != benchBatch*b.N {
				b.Fatalf("%d sent, want %d", sent, benchBatch*b.N)
			}
		})
	}
}

// benchEnrollments writes n debtors with a charge due on due's day each,
// enrolled in the plan with its step due at due.
func benchEnrollments(b *testing.B, db *store.DB, org, planID, stepID string, due time.Time, n int) {
	b.Helper()
	ctx := context.Background()
	now := store.Now()
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		for i := 0; i < n; i++ {
			d, c := store.NewID(), store.NewID()
			if _, err := tx.Exec(ctx, `INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind, emails, phones,
				status, created_at, updated_at) VALUES (?, ?, ?, ?, '52998224725', 'natural', '[]', '["+5511987654321"]', 'active', ?, ?)`,
				d, org, "bench-"+d, fmt.Sprintf("Devedor %d", i), now, now); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO dunning_charges (id, organization_id, debtor_id, amount_cents, open_amount_cents, due_date,
				description, fine, interest, origin, tags, custom_data, status, created_at, updated_at)
				VALUES (?, ?, ?, 10000, 10000, ?, 'Parcela', 0, 0, 'external', '[]', '{}', 'pending', ?, ?)`,
				c, org, d, due.In(brasilia).Format("2006-01-02"), now, now); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO dunning_enrollments (id, organization_id, charge_id, plan_id, status, next_step_id, next_run_at,
				skipped_past, started_at, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?, 0, ?, ?, ?)`,
				store.NewID(), org, c, planID, stepID, due, now, now, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSweep measures the daily sweep over 10 000 and 100 000
// pending charges past their grace (all turned overdue, each with its
// dunning.charge.overdue event) and logs the plans of its queries: the
// organizations from dunning_charges_sweep (status, due_date), each
// organization's batches from dunning_charges_list (organization_id,
// status, due_date, id).
// ns/charge staying flat from one size to the other is the sweep being
// linear.
func BenchmarkSweep(b *testing.B) {
	for _, engine := range storetest.Engines {
		for _, size := range []int{10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/%d", engine, size), func(b *testing.B) {
				db := storetest.Open(b, engine, Migrations)
				ne := startNotify(b, db, ledger.ChannelConfig{}, sp(2026, 3, 2, 10, 0))
				ctx := context.Background()
				benchCharges(b, db, ne.Mine.ID, size)
				if engine == store.Postgres {
					if _, err := db.Exec(ctx, `ANALYZE dunning_charges`); err != nil {
						b.Fatal(err)
					}
				}
				b.Logf("plans of the sweep's queries:\n%s", sweepPlan(b, db, ne.Mine.ID))
				var took time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					if _, err := db.Exec(ctx, `UPDATE dunning_charges SET status = 'pending', overdue_at = NULL`); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					start := time.Now()
					n, err := ne.n.Sweep(ctx)
					took += time.Since(start)
					if err != nil || n != size {
						b.Fatalf("sweep turned %d of %d: %v", n, size, err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(took.Nanoseconds())/float64(size*b.N), "ns/charge")
				b.ReportMetric(took.Seconds()/float64(b.N), "s/sweep")
			})
		}
	}
}

// benchCharges writes n pending charges due from 1 January to 26
// February 2026 (all past their grace on 2 March), in transactions of 5 000.
func benchCharges(b *testing.B, db *store.DB, org string, n int) {
	b.Helper()
	ctx := context.Background()
	d := seedDebtor(b, db, debtorSeed{OrgID: org, Name: "Bench"})
	now := store.Now()
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const chunk = 500
	for done := 0; done < n; {
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			for k := 0; k < 10 && done < n; k++ {
				rows := min(chunk, n-done)
				var sb strings.Builder
				args := make([]any, 0, rows*6)
				for i := 0; i < rows; i++ {
					if i > 0 {
						sb.WriteString(", ")
					}
					sb.WriteString(`(?, ?, ?, 10000, 10000, ?, 'Parcela', 0, 0, 'external', '[]', '{}', 'pending', ?, ?)`)
					args = append(args, store.NewID(), org, d, first.AddDate(0, 0, (done+i)%57).Format("2006-01-02"), now, now)
				}
				if _, err := tx.Exec(ctx, `INSERT INTO dunning_charges (id, organization_id, debtor_id, amount_cents, open_amount_cents, due_date,
					description, fine, interest, origin, tags, custom_data, status, created_at, updated_at) VALUES `+sb.String(), args...); err != nil {
					return err
				}
				done += rows
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// sweepPlan is the engine's plan of the sweep's two queries.
func sweepPlan(b *testing.B, db *store.DB, org string) string {
	b.Helper()
	var out strings.Builder
	for _, q := range []string{sweepOrganizationsQuery, strings.Replace(sweepBatchQuery, "'o'", "'"+org+"'", 1)} {
		if db.Dialect() == store.SQLite {
			out.WriteString(storetest.Explain(b, db, q) + "\n")
			continue
		}
		var lines []string
		if err := db.Select(context.Background(), &lines, "EXPLAIN "+q); err != nil {
			b.Fatal(err)
		}
		out.WriteString(strings.Join(lines, "\n") + "\n")
	}
	return out.String()
}
