package ledger

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Numbered pages by remembered marks (docs/decisions.md, "Numbered pages
// by remembered marks"; migration 00296). A deep page of a listing that
// the counters answer (charges by archiving and status, debtors by
// status) seeks after a remembered row instead of walking every row
// before it: dunning_page_marks holds, for position k of a list, the id of
// the row at offset k×markStride−1 and the listings' version it was read
// at (the sum of the organization's counter rows' v, which every charge or
// debtor write moves in its transaction). A page at offset o reads, in one
// statement, the rows after mark o/markStride — only while its version is
// that statement's own sum — with the remaining OFFSET below markStride.
// Without a valid mark the marks up to it are read from the nearest valid
// one (or the start) and stored, then the seek runs again; should a write
// land in between, the page is read by OFFSET as before. Every state is in
// the database: any replica reads the marks another wrote, and a mark of
// an older version is never used.

// markStride is how many rows lie between two marks: a page under a mark
// walks fewer than markStride + per_page index entries.
const markStride = 500

// markBatch is how many marks one INSERT stores.
const markBatch = 100

// markedList is a listing the marks serve: its table under an alias, the
// columns a page reads, its condition and arguments (the organization's id
// first), its order column and direction, the counters that version it
// and the key its marks are stored under.
type markedList struct {
	table    string // e.g. "dunning_charges"
	alias    string // the table's alias in columns and cond (not b or m)
	columns  string
	cond     string
	args     []any
	order    string // a column of the table, unqualified
	dir      string // ASC or DESC
	counters string // dunning_charge_counts or dunning_debtor_counts
	key      string
}

// versionSQL is the organization's listings' version of l's table.
func (l markedList) versionSQL() string {
	return `(SELECT CAST(COALESCE(SUM(v), 0) AS BIGINT) FROM ` + l.counters + ` WHERE organization_id = ?)`
}

// after is the condition "the row comes after the row the subquery sub names"
// in l's order; sub reads the order column and id of one row as b.
func (l markedList) after(sub string) string {
	op := ">"
	if l.dir == "DESC" {
		op = "<"
	}
	return `(` + l.alias + `.` + l.order + `, ` + l.alias + `.id) ` + op + ` (SELECT b.` + l.order + `, b.id FROM ` + l.table + ` b ` + sub + `)`
}

// orgID is the organization the list belongs to (its first argument).
func (l markedList) orgID() any { return l.args[0] }

// readMarkedPage reads limit rows of l from offset into dest, seeking
// under a mark when the offset is at least markStride (the comment at the
// top of this file); total is the list's size, from the counters.
func readMarkedPage[T any](ctx context.Context, q store.Querier, l markedList, limit, offset, total int, dest *[]T) error {
	k := offset / markStride
	if k == 0 {
		return q.Select(store.ShortRead(ctx), dest, l.pageSQL(""), append(l.args, limit, offset)...)
	}
	if offset >= total {
		return nil
	}
	if err := seekPage(ctx, q, l, k, limit, offset, dest); err != nil || len(*dest) > 0 {
		return err
	}
	if err := l.markUpTo(ctx, q, k); err != nil {
		return err
	}
	if err := seekPage(ctx, q, l, k, limit, offset, dest); err != nil || len(*dest) > 0 {
		return err
	}
	// A write between the marks and the page: read it as before.
	return q.Select(ctx, dest, l.pageSQL(""), append(l.args, limit, offset)...)
}

// pageSQL is l's page statement, with extra ANDed to its condition.
func (l markedList) pageSQL(extra string) string {
	a := l.alias
	return `SELECT ` + l.columns + ` FROM ` + l.table + ` ` + a + ` WHERE ` + l.cond + extra + ` ORDER BY ` + a + `.` + l.order + ` ` + l.dir + `, ` + a + `.id ` + l.dir + ` LIMIT ? OFFSET ?`
}

// seekPage reads the page at offset after mark k, in one statement that
// checks the mark's version against its own reading of the counters: an
// old or missing mark matches no row, and the page comes back empty. The
// walk is bounded (below markStride + limit entries), so it reads without
// the request's cancellation.
func seekPage[T any](ctx context.Context, q store.Querier, l markedList, k, limit, offset int, dest *[]T) error {
	sub := `JOIN dunning_page_marks m ON m.row_id = b.id WHERE m.organization_id = ? AND m.list = ? AND m.position = ? AND m.version = ` + l.versionSQL()
	args := append(append([]any{}, l.args...), l.orgID(), l.key, k, l.orgID(), limit, offset-k*markStride)
	return q.Select(store.ShortRead(ctx), dest, l.pageSQL(` AND `+l.after(sub)), args...)
}

// markUpTo stores l's marks from the nearest valid one below position k
// (or the list's start) up to k, read at the version read first: a write
// after it makes them old before any page can use them (a page checks the
// version in its own statement). Marks of a newer version are kept.
func (l markedList) markUpTo(ctx context.Context, q store.Querier, k int) error {
	var version int64
	if err := q.Get(ctx, &version, `SELECT `+l.versionSQL(), l.orgID()); err != nil {
		return err
	}
	var from struct {
		Position int    `db:"position"`
		RowID    string `db:"row_id"`
	}
	err := q.Get(ctx, &from, `SELECT position, row_id FROM dunning_page_marks WHERE organization_id = ? AND list = ? AND position <= ? AND version = ?
		ORDER BY position DESC LIMIT 1`, l.orgID(), l.key, k, version)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var marks []string
	for pos, last := from.Position+1, from.RowID; pos <= k; pos++ {
		extra, args := "", append([]any{}, l.args...)
		if last != "" {
			extra, args = ` AND `+l.after(`WHERE b.id = ?`), append(args, last)
		}
		var ids []string
		if err := q.Select(ctx, &ids, strings.Replace(l.pageSQL(extra), `SELECT `+l.columns, `SELECT `+l.alias+`.id`, 1), append(args, 1, markStride-1)...); err != nil {
			return err
		}
		if len(ids) == 0 {
			break
		}
		last = ids[0]
		marks = append(marks, last)
	}
	return l.storeMarks(ctx, q, from.Position+1, version, marks)
}

// storeMarks writes marks (positions first, first+1, …) at version, in
// batches; a mark already stored at a newer version stays.
func (l markedList) storeMarks(ctx context.Context, q store.Querier, first int, version int64, marks []string) error {
	for len(marks) > 0 {
		n := min(len(marks), markBatch)
		values := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?), ", n), ", ")
		args := make([]any, 0, 5*n)
		for i, id := range marks[:n] {
			args = append(args, l.orgID(), l.key, first+i, version, id)
		}
		if _, err := q.Exec(ctx, `INSERT INTO dunning_page_marks (organization_id, list, position, version, row_id) VALUES `+values+`
			ON CONFLICT (organization_id, list, position) DO UPDATE SET version = excluded.version, row_id = excluded.row_id
			WHERE dunning_page_marks.version < excluded.version`, args...); err != nil {
			return err
		}
		marks, first = marks[n:], first+n
	}
	return nil
}

// listKey is the key a list's marks are stored under: its parts joined
// (the table, the filter's values, the order and direction).
func listKey(parts ...string) string {
	return strings.Join(parts, "|")
}

// boolKey is a flag's part of a listKey.
func boolKey(b bool) string { return strconv.FormatBool(b) }
