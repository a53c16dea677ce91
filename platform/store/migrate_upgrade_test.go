package store_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// productFiles stands for a product's own migrations, as they were kept
// in the platform's directory before products held their own.
var productFiles = fstest.MapFS{
	"00100_product_core.sql": {Data: []byte("-- +goose Up\nCREATE TABLE product_core (id TEXT PRIMARY KEY, at {{timestamp}});\n-- +goose Down\nDROP TABLE product_core;\n")},
	"00110_product_more.sql": {Data: []byte("-- +goose Up\nCREATE TABLE product_more (id TEXT PRIMARY KEY);\n-- +goose Down\nDROP TABLE product_more;\n")},
}

// TestUpgradeFromOneFlatDirectory: a database migrated from one flat
// directory (the platform's files and a product's side by side, as the
// binary shipped them before each product kept its own) is current for
// the same files split into sources, and takes a product's new step and
// a step numbered below ones already applied, each once.
func TestUpgradeFromOneFlatDirectory(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.OpenUnmigrated(t, d)
			// The old layout: one directory, one goose provider.
			if err := store.MigrateFlatForTest(ctx, db, productFiles); err != nil {
				t.Fatal(err)
			}
			// The new layout: the platform's files and the product's source.
			applied, err := db.Migrate(ctx, productFiles)
			if err != nil || len(applied) != 0 {
				t.Fatalf("same files split into sources: applied %v, %v", applied, err)
			}
			next := fstest.MapFS{
				"00100_product_core.sql": productFiles["00100_product_core.sql"],
				"00110_product_more.sql": productFiles["00110_product_more.sql"],
				"00120_product_new.sql":  {Data: []byte("-- +goose Up\nCREATE TABLE product_new (id TEXT PRIMARY KEY);\n-- +goose Down\nDROP TABLE product_new;\n")},
			}
			late := fstest.MapFS{"00095_other_late.sql": {Data: []byte("-- +goose Up\nCREATE TABLE other_late (id TEXT PRIMARY KEY);\n-- +goose Down\nDROP TABLE other_late;\n")}}
			applied, err = db.Migrate(ctx, next, late)
			if err != nil || len(applied) != 2 || applied[0].Version != 95 || applied[1].Version != 120 {
				t.Fatalf("new steps: applied %+v, %v", applied, err)
			}
			if again, err := db.Migrate(ctx, next, late); err != nil || len(again) != 0 {
				t.Fatalf("again: %v %v", again, err)
			}
			var n int
			if err := db.Get(ctx, &n, "SELECT COUNT(*) FROM product_new"); err != nil {
				t.Fatal(err)
			}
			// Two sources claiming one version is refused before anything runs.
			clash := fstest.MapFS{"00120_clash.sql": {Data: []byte("-- +goose Up\nSELECT 1;\n")}}
			if _, err := db.Migrate(ctx, next, clash); err == nil {
				t.Fatal("two files with version 120 were accepted")
			}
		})
	}
}
