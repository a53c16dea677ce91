package dunning

import (
	"context"
	"io/fs"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestMigrationsUpAndDown: Dunning's tables apply on both engines after
// the platform's, and each step rolls back.
func TestMigrationsUpAndDown(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, table := range []string{"dunning_settings", "dunning_debtors", "dunning_opt_outs", "dunning_charges", "dunning_payments",
			"dunning_plans", "dunning_plan_steps", "dunning_enrollments", "dunning_notifications", "dunning_step_approvals",
			"dunning_documents", "dunning_creditors", "dunning_exports", "dunning_export_parts",
			"dunning_commands", "dunning_agreements", "dunning_agreement_charges", "dunning_agreement_installments"} {
			var n int
			if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM "+table); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
		}
		// One step down per migration file of Dunning's.
		files, err := fs.Glob(Migrations, "*.sql")
		if err != nil || len(files) == 0 {
			t.Fatalf("migration files: %v %v", files, err)
		}
		for range files {
			if err := db.MigrateDown(ctx, Migrations); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM dunning_debtors"); err == nil {
			t.Fatalf("dunning_debtors is still there after %d steps down", len(files))
		}
	})
}
