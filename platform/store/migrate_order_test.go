package store_test

import (
	"context"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestMigrationBelowTheNewest: a database migrated by a binary that did
// not have a step numbered below its newest one (platform steps stay under
// 00100, the products' start at 00100) gets that step at the next start,
// instead of goose refusing to migrate because a step is "missing".
// 00070_oauth_revoked_grants.sql (now oauth/server/sqlstore's) was such a
// step: it came after 00110. 00050 stands for it here.
func TestMigrationBelowTheNewest(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.Open(t, d)
			// The database as a binary without 00050 would have left it.
			if _, err := db.Exec(ctx, "DROP TABLE idempotency_keys"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(ctx, "DELETE FROM goose_db_version WHERE version_id = 50"); err != nil {
				t.Fatal(err)
			}
			applied, err := db.Migrate(ctx)
			if err != nil || len(applied) != 1 || applied[0].Version != 50 {
				t.Fatalf("migrate: %v (applied %+v)", err, applied)
			}
			var n int
			if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM idempotency_keys"); err != nil || n != 0 {
				t.Fatalf("idempotency_keys after migrate: %d, %v", n, err)
			}
			if cur, latest, err := db.SchemaVersion(ctx); err != nil || cur != latest {
				t.Fatalf("after migrate: version %d of %d, %v", cur, latest, err)
			}
		})
	}
}
