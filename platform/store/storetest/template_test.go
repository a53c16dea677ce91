package storetest

import (
	"context"
	"log/slog"
	"testing"
	"testing/fstest"

	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Open's database is current — nothing left for the platform's, the
// sources' or River's migrations — on both engines; each test's copy is its
// own; and sources that differ get a template of their own.
func TestOpenIsMigratedAndOwn(t *testing.T) {
	t.Parallel()
	notes := fstest.MapFS{"00900_notes.sql": {Data: []byte("-- +goose Up\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);\n-- +goose Down\nDROP TABLE notes;\n")}}
	tags := fstest.MapFS{"00900_tags.sql": {Data: []byte("-- +goose Up\nCREATE TABLE tags (id INTEGER PRIMARY KEY);\n-- +goose Down\nDROP TABLE tags;\n")}}
	quiet := slog.New(slog.DiscardHandler)
	for _, d := range Engines {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			a, b := Open(t, d, notes), Open(t, d, notes)
			for _, db := range []*store.DB{a, b} {
				if applied, err := db.Migrate(ctx, notes); err != nil || len(applied) != 0 {
					t.Fatalf("Migrate on Open's database = %v, %v; want nothing to do", applied, err)
				}
				if applied, err := riverschema.Migrate(ctx, db, quiet); err != nil || len(applied) != 0 {
					t.Fatalf("River's Migrate on Open's database = %v, %v; want nothing to do", applied, err)
				}
				if cur, latest, err := db.SchemaVersion(ctx, notes); err != nil || cur != latest || cur != 900 {
					t.Fatalf("schema version %d of %d (%v), want 900", cur, latest, err)
				}
			}
			if _, err := a.Exec(ctx, "INSERT INTO notes (id, body) VALUES (1, 'mine')"); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := b.Get(ctx, &n, "SELECT COUNT(*) FROM notes"); err != nil || n != 0 {
				t.Fatalf("another test's database holds %d notes (%v), want none", n, err)
			}
			c := Open(t, d, tags)
			if err := c.Get(ctx, &n, "SELECT COUNT(*) FROM tags"); err != nil {
				t.Fatalf("other sources' database has no tags table: %v", err)
			}
			if err := c.Get(ctx, &n, "SELECT COUNT(*) FROM notes"); err == nil {
				t.Fatal("other sources' database has the notes table of the first sources")
			}
		})
	}
}
