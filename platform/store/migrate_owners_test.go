package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// TestMigrationsBesideTheirOwners: the steps that moved from the
// platform's directory to the packages owning their tables (signing keys,
// the authorization server's tables, the approvals) kept their versions,
// so a database migrated with today's layout — all of them in one
// directory with the platform's — is current for the new one and runs
// nothing again, and a fresh database ends with the same schema. A
// product that carries the approvals' steps too (as Kadu does) does not
// run them twice.
func TestMigrationsBesideTheirOwners(t *testing.T) {
	framework := productkit.FrameworkMigrations()
	var versions []string
	for _, src := range framework {
		names, err := fs.Glob(src, "*.sql")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			v, _, _ := strings.Cut(n, "_")
			versions = append(versions, v)
		}
	}
	slices.Sort(versions)
	if want := []string{"00010", "00020", "00040", "00045", "00070", "00080"}; !slices.Equal(versions, want) {
		t.Fatalf("the framework's steps are versions %v, want %v", versions, want)
	}
	product := fstest.MapFS{"00100_product_core.sql": productFiles["00100_product_core.sql"]}
	carrier := store.Union(product, approval.Migrations) // a product that reads the approvals
	newLayout := append(slices.Clone(framework), carrier)
	for _, d := range storetest.Engines {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			old := storetest.OpenUnmigrated(t, d)
			// Today's layout: the moved files in the platform's directory.
			if err := store.MigrateFlatForTest(ctx, old, store.Union(append(slices.Clone(framework), product)...)); err != nil {
				t.Fatal(err)
			}
			applied, err := old.Migrate(ctx, newLayout...)
			if err != nil || len(applied) != 0 {
				t.Fatalf("the new layout over today's: applied %+v, %v", applied, err)
			}
			if cur, latest, err := old.SchemaVersion(ctx, newLayout...); err != nil || cur != latest {
				t.Fatalf("after the upgrade: version %d of %d, %v", cur, latest, err)
			}
			fresh := storetest.OpenUnmigrated(t, d)
			if _, err := fresh.Migrate(ctx, newLayout...); err != nil {
				t.Fatal(err)
			}
			a, b := schemaDump(t, old), schemaDump(t, fresh)
			if a != b {
				t.Fatalf("upgraded and fresh schemas differ:\nupgraded:\n%s\nfresh:\n%s", a, b)
			}
			for _, table := range []string{"oauth_signing_keys", "oauth_clients", "oauth_revoked_grants", "approvals"} {
				if !strings.Contains(b, "table "+table+"\n") && !strings.Contains(b, "table "+table+" CREATE") {
					t.Errorf("fresh schema has no table %s:\n%s", table, b)
				}
			}
		})
	}
}

// schemaDump describes db's tables, columns, indexes and applied
// migration versions, in a form that does not depend on the PostgreSQL
// schema the test database lives in.
func schemaDump(t *testing.T, db *store.DB) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	add := func(query string) {
		rows, err := db.SQL().QueryContext(ctx, query)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				parts = append(parts, fmt.Sprint(v))
			}
			lines = append(lines, strings.Join(parts, " "))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	switch db.Dialect() {
	case store.SQLite:
		add(`SELECT type || ' ' || name, COALESCE(sql, '') FROM sqlite_master
			WHERE name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version' ORDER BY type, name`)
	default:
		add(`SELECT 'table ' || table_name || E'\n' FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_name <> 'goose_db_version' ORDER BY table_name`)
		add(`SELECT table_name, column_name, ordinal_position, data_type, is_nullable, COALESCE(column_default, '')
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'goose_db_version'
			ORDER BY table_name, ordinal_position`)
		add(`SELECT tablename, indexname, replace(indexdef, current_schema() || '.', '') FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename <> 'goose_db_version' ORDER BY tablename, indexname`)
		add(`SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
			WHERE connamespace = current_schema()::regnamespace ORDER BY 1, 2`)
	}
	add(`SELECT 'version ' || CAST(version_id AS TEXT) FROM goose_db_version WHERE is_applied AND version_id > 0 ORDER BY version_id`)
	return strings.Join(lines, "\n")
}

// TestSameStepFromTwoSources: one file carried by two sources is one
// step; the same name with other contents is refused before anything
// runs.
func TestSameStepFromTwoSources(t *testing.T) {
	ctx := context.Background()
	db := storetest.OpenUnmigrated(t, store.SQLite)
	step := fstest.MapFS{"00100_product_core.sql": productFiles["00100_product_core.sql"]}
	applied, err := db.Migrate(ctx, step, store.Union(step))
	if err != nil || len(applied) == 0 || applied[len(applied)-1].Version != 100 {
		t.Fatalf("one step from two sources: %+v, %v", applied, err)
	}
	other := fstest.MapFS{"00100_product_core.sql": {Data: []byte("-- +goose Up\nSELECT 1;\n")}}
	if _, err := db.Migrate(ctx, step, other); err == nil || !strings.Contains(err.Error(), "different contents") {
		t.Fatalf("one name, two contents: %v", err)
	}
}
