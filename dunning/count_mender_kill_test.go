package dunning

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/internal/childproc"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// menderEnv, when set, makes the test binary a process that runs the count
// mender once over the database of its config (JSON: {"database_url":…}).
const menderEnv = "KOBANA_DUNNING_TEST_MENDER"

func runMenderProcess(raw []byte) int {
	var cfg struct {
		DatabaseURL string `json:"database_url"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "mender:", err)
		return 2
	}
	ctx := context.Background()
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mender:", err)
		return 2
	}
	n, err := ledger.NewService(db, accounts.New(db, accounts.Options{}), nil, nil, nil).MendCounts(ctx)
	fmt.Println("mended", n, err)
	return 0
}

// TestCountMenderKilled: a separate process mends the counts of 5 000
// charges that were never counted, and is killed with SIGKILL part-way —
// on PostgreSQL inside a row's transaction, which has updated the charge
// and waits for the counter row this test holds locked; on SQLite while
// it waits for the database's write lock. Every row it mended before is
// counted exactly once and the one it was mending not at all (the
// counters equal the rows counted as each status), and the next run
// mends exactly the rest: the listings' totals come out exact
// (docs/decisions.md, "Listings at scale").
func TestCountMenderKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts and kills a process")
	}
	const rows = 5000
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, dbURL := storetest.OpenShared(t, engine, Migrations)
			org, err := accounts.New(db, accounts.Options{}).CreateOrganization(ctx, "Credora")
			if err != nil {
				t.Fatal(err)
			}
			seedListing(t, db, "k", org.ID, rows)
			mended := func() int {
				var n int
				if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM dunning_charges WHERE organization_id = ? AND counted_status IS NOT NULL`, org.ID); err != nil {
					t.Fatal(err)
				}
				return n
			}
			// The kill must land part-way. On SQLite the test's lock waits
			// for the mender's write lock like any other process's, and on a
			// loaded host the mender can finish before the test gets in: the
			// scenario is then set up again (the counts forgotten, a new
			// mender), at most three times.
			var before int
			var child *childproc.Child
			for try := 1; ; try++ {
				before, child = killMenderPartWay(t, ctx, db, dbURL, engine, org.ID, mended)
				if before > 0 && before < rows {
					break
				}
				if try == 3 {
					t.Fatalf("killed after %d of %d rows: not part-way, three times\n%s", before, rows, child.Output())
				}
				t.Logf("try %d: killed after %d of %d rows, not part-way; again", try, before, rows)
			}
			t.Logf("killed after %d of %d rows", before, rows)
			if got := mended(); got != before {
				t.Fatalf("%d rows counted after the kill, %d before it", got, before)
			}
			// What is counted is exactly the rows counted as each key.
			counters := chargeCounterRows(t, db, org.ID, "n")
			counted := chargeRowsBy(t, db, org.ID, "counted_archived", "counted_status", "COUNT(*)", "counted_status IS NOT NULL")
			if fmt.Sprint(counters) != fmt.Sprint(counted) {
				t.Fatalf("after the kill the counters say %v, the rows are counted as %v", counters, counted)
			}
			n, err := ledger.NewService(db, accounts.New(db, accounts.Options{}), nil, nil, nil).MendCounts(ctx)
			if err != nil || n != rows-before {
				t.Fatalf("the next run mended %d (%v), want the %d left", n, err, rows-before)
			}
			wantCountsMatch(t, nil, db, org.ID)
		})
	}
}

// killMenderPartWay forgets the organization's counts, starts a mender
// process, waits until it has mended something, holds what its next row
// needs, and kills it there: the rows it had mended then.
func killMenderPartWay(t *testing.T, ctx context.Context, db *store.DB, dbURL string, engine store.Dialect, orgID string, mended func() int) (int, *childproc.Child) {
	t.Helper()
	// Loaded in bulk with no count: nothing is counted, and the
	// counters say so.
	for _, q := range []string{
		`UPDATE dunning_charges SET counted_status = NULL, counted_archived = NULL WHERE organization_id = ?`,
		`DELETE FROM dunning_charge_counts WHERE organization_id = ?`,
	} {
		if _, err := db.Exec(ctx, q, orgID); err != nil {
			t.Fatal(err)
		}
	}
	child := childproc.Start(t, menderEnv, map[string]string{"database_url": dbURL})
	var before int
	deadline := time.Now().Add(60 * time.Second)
	for mended() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the mender process mended nothing in 60 s:\n%s", child.Output())
		}
		time.Sleep(time.Millisecond)
	}
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		// Hold what the mender's next row needs, let it reach the
		// wait, and kill it there.
		lock := `UPDATE dunning_charge_counts SET n = n WHERE organization_id = ?`
		if engine == store.Postgres {
			lock = `LOCK TABLE dunning_charge_counts IN EXCLUSIVE MODE`
		}
		if _, err := tx.Exec(ctx, lock, lockArgs(engine, orgID)...); err != nil {
			return err
		}
		time.Sleep(300 * time.Millisecond)
		if err := tx.Get(ctx, &before, `SELECT COUNT(*) FROM dunning_charges WHERE organization_id = ? AND counted_status IS NOT NULL`, orgID); err != nil {
			return err
		}
		child.Kill(t)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return before, child
}

func lockArgs(engine store.Dialect, orgID string) []any {
	if engine == store.Postgres {
		return nil
	}
	return []any{orgID}
}
