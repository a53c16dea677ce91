package store_test

import (
	"context"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// roomItem is 64 bytes (a size class of Go's allocator): a slice of five
// is made exactly, a slice grown one row at a time reaches eight.
type roomItem struct {
	ID   int64   `db:"id"`
	Name string  `db:"name"`
	Kept string  // no column: zero in every row Select returns
	When *string `db:"when_at"`
	Size int64   `db:"size"`
	Pad  int64
}

// TestSelectMakesRoomOnce: Select scans each row where it stays — in the
// slice's spare room (stale values there are not kept), else in room made
// once for as many rows as the query's last answer had; an empty answer
// makes none, a failed scan leaves the slice as it was — on both engines.
func TestSelectMakesRoomOnce(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if _, err := db.Exec(ctx, `CREATE TABLE room_items (id INTEGER PRIMARY KEY, name TEXT, size INTEGER NOT NULL DEFAULT 0, when_at TEXT)`); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if _, err := db.Exec(ctx, `INSERT INTO room_items (id, name, size) VALUES (?, ?, ?)`, i+1, string(rune('a'+i)), i); err != nil {
				t.Fatal(err)
			}
		}
		const five = `SELECT id, name, size, when_at FROM room_items ORDER BY id`
		// The first answer has no hint: the slice grows as append grows it.
		var first []roomItem
		if err := db.Select(ctx, &first, five); err != nil || len(first) != 5 {
			t.Fatalf("first: %v %d", err, len(first))
		}
		// The next one is made room for five when its first row arrives.
		var next []roomItem
		if err := db.Select(ctx, &next, five); err != nil || len(next) != 5 || next[4].Name != "e" {
			t.Fatalf("next: %v %+v", err, next)
		}
		if cap(next) >= 8 {
			t.Fatalf("room grown row by row (cap %d), not made once for the last answer's five", cap(next))
		}
		// An empty answer makes no room (and leaves the hint at zero).
		var none []roomItem
		if err := db.Select(ctx, &none, `SELECT id, name, size, when_at FROM room_items WHERE id > ? ORDER BY id`, 99); err != nil || none != nil {
			t.Fatalf("empty answer: %v %v (cap %d)", err, none, cap(none))
		}
		// Spare room is scanned in place, its stale values zeroed first.
		stale := make([]roomItem, 5)
		for i := range stale {
			stale[i] = roomItem{ID: 100, Name: "stale", Kept: "stale", Pad: 7}
		}
		room := stale[:1]
		if err := db.Select(ctx, &room, `SELECT id, name FROM room_items WHERE id <= ? ORDER BY id`, 3); err != nil || len(room) != 4 {
			t.Fatalf("in place: %v %+v", err, room)
		}
		if &room[0] != &stale[0] || room[0].Name != "stale" {
			t.Fatalf("the row before the answer moved or changed: %+v", room[0])
		}
		for _, r := range room[1:] {
			if r.Kept != "" || r.Pad != 0 || r.Size != 0 || r.Name == "stale" {
				t.Fatalf("a stale value survived in a scanned row: %+v", r)
			}
		}
		// A row that fails to scan (NULL into a string) leaves the slice
		// as it was: its length and the rows before.
		if _, err := db.Exec(ctx, `INSERT INTO room_items (id, name) VALUES (?, NULL)`, 6); err != nil {
			t.Fatal(err)
		}
		kept := []roomItem{{Name: "mine"}}
		if err := db.Select(ctx, &kept, five); err == nil {
			t.Fatal("a NULL scanned into a string was accepted")
		}
		if len(kept) != 1 || kept[0].Name != "mine" {
			t.Fatalf("a failed Select changed the slice: %+v", kept)
		}
		var ptrs []*roomItem
		if err := db.Select(ctx, &ptrs, `SELECT id, name FROM room_items WHERE id <= ? ORDER BY id`, 5); err != nil || len(ptrs) != 5 || ptrs[0] == ptrs[1] || ptrs[4].Name != "e" {
			t.Fatalf("pointers: %v %v", err, ptrs)
		}
	})
}
