package store_test

import (
	"context"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// A short read runs after its request's context has ended, and inside the
// request's ambient transaction it still sees what that transaction wrote.
func TestShortRead(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, finish, err := db.BeginAmbient(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer finish(false)
		id := store.NewID()
		if err := insertOrg(ctx, db, id, "short"); err != nil {
			t.Fatal(err)
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		var names []string
		if err := db.Select(cancelled, &names, "SELECT name FROM organizations WHERE id = ?", id); err == nil {
			t.Fatalf("a read under a cancelled context ran: %v", names)
		}
		short := store.ShortRead(cancelled)
		if short.Err() != nil || short.Done() != nil {
			t.Fatalf("ShortRead kept the cancellation: %v", short.Err())
		}
		if err := db.Select(short, &names, "SELECT name FROM organizations WHERE id = ?", id); err != nil || len(names) != 1 || names[0] != "short" {
			t.Fatalf("short read in the ambient transaction: %v, %v", names, err)
		}
		if bg := context.Background(); store.ShortRead(bg) != bg {
			t.Fatal("a context without cancellation should be returned as it is")
		}
	})
}

// The price of a cancellable context on a one-row read, peer against
// peer in one run (docs/performance.md, "The signed-in path, third round
// (issue 16)").
func BenchmarkSelectCancellable(b *testing.B) { benchSelect(b, false) }
func BenchmarkSelectShortRead(b *testing.B)   { benchSelect(b, true) }

func benchSelect(b *testing.B, short bool) {
	db := storetest.Open(b, store.SQLite)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	id := store.NewID()
	if err := insertOrg(ctx, db, id, "bench"); err != nil {
		b.Fatal(err)
	}
	if short {
		ctx = store.ShortRead(ctx)
	}
	b.ReportAllocs()
	for b.Loop() {
		var names []string
		if err := db.Select(ctx, &names, "SELECT name FROM organizations WHERE id = ?", id); err != nil || len(names) != 1 {
			b.Fatal(names, err)
		}
	}
}
