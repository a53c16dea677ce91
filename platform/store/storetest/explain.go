package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Explain is the engine's plan of query, one step a line: SQLite's
// EXPLAIN QUERY PLAN, or PostgreSQL's EXPLAIN with sequential scans off
// (so a plan with no fitting index shows as a Sort or a Seq Scan). The
// products' plan tests pin their listings' and sweeps' indexes with it
// (docs/decisions.md, "Listings at scale").
func Explain(t testing.TB, db *store.DB, query string, args ...any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var lines []string
	if db.Dialect() == store.SQLite {
		var rows []struct {
			ID      int    `db:"id"`
			Parent  int    `db:"parent"`
			NotUsed int    `db:"notused"`
			Detail  string `db:"detail"`
		}
		if err := db.Select(ctx, &rows, "EXPLAIN QUERY PLAN "+query, args...); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			lines = append(lines, r.Detail)
		}
		return strings.Join(lines, "\n")
	}
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		return tx.Select(ctx, &lines, "EXPLAIN "+query, args...)
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
