package restkit

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/kobana/kobana-mcp/rest"
)

// ListStyle is how a product's listings page: each product's API uses one
// style for every list, so its clients learn it once.
type ListStyle int

const (
	// CursorList pages by keyset: limit (1–200, default 50) and cursor in,
	// {data, meta:{next_cursor}} out (the Inbox).
	CursorList ListStyle = iota
	// CursorListWithLimit is CursorList whose meta also carries the limit
	// used: {data, meta:{next_cursor, limit}} (Kadu).
	CursorListWithLimit
	// NumberedList pages by number: page (from 1) and per_page (1–100,
	// default 25) in, {data, meta:{total, page, per_page, total_pages}} out
	// (Dunning).
	NumberedList
)

// Cursor listings page by keyset: rows come ordered by id (UUIDv7,
// time-ordered), a page asks for limit+1 rows after the cursor's id, and
// the extra row only says that a next page exists. The cursor is opaque to
// clients (the last id of the page, base64url with a prefix), so the
// paging scheme can change without breaking them (docs/decisions.md
// "Listings").

// DefaultLimit and MaxLimit bound a cursor page.
const (
	DefaultLimit = 50
	MaxLimit     = 200
)

const cursorPrefix = "c1:"

// PageLimit is the page size a cursor request asked for, or the default.
func PageLimit(limit int) int {
	if limit <= 0 {
		return DefaultLimit
	}
	return min(limit, MaxLimit)
}

// EncodeCursor makes the cursor that continues after id.
func EncodeCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + id))
}

// DecodeCursor returns the id a cursor continues after ("" for none), or
// a validation error naming the cursor argument.
func DecodeCursor(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) || len(b) == len(cursorPrefix) {
		return "", rest.Validation("the request is invalid", rest.FieldError{Field: "cursor", Message: "is not a cursor of this listing"})
	}
	return string(b[len(cursorPrefix):]), nil
}

// CursorPage answers a cursor listing: rows holds up to limit+1 rows as
// the query returned them; data is the first limit, shown through show,
// and meta.next_cursor continues after the last one when there are more.
func CursorPage[R any, J any](rows []R, limit int, idOf func(R) string, show func(R) J) *rest.Response {
	data, next := cursorData(rows, limit, idOf, show)
	return rest.OK(&cursorPage[J]{Data: data, Meta: cursorMeta{NextCursor: next}})
}

// cursorPage is a cursor listing's answer, {"data": [...], "meta":
// {"next_cursor": ...}}: a struct rather than maps, whose encoding sorts
// their keys, on every page.
type cursorPage[J any] struct {
	Data []J        `json:"data"`
	Meta cursorMeta `json:"meta"`
}

type cursorMeta struct {
	NextCursor *string `json:"next_cursor"`
}

// CursorPageWithLimit is CursorPage whose meta also says the limit used.
func CursorPageWithLimit[R any, J any](rows []R, limit int, idOf func(R) string, show func(R) J) *rest.Response {
	data, next := cursorData(rows, limit, idOf, show)
	return rest.OK(&cursorPageWithLimit[J]{Data: data, Meta: cursorLimitMeta{NextCursor: next, Limit: limit}})
}

// cursorPageWithLimit is CursorPageWithLimit's answer, a struct for
// cursorPage's reason: {"data": [...], "meta": {"next_cursor": ...,
// "limit": n}}, the members in the order a map's sorted keys gave them.
type cursorPageWithLimit[J any] struct {
	Data []J             `json:"data"`
	Meta cursorLimitMeta `json:"meta"`
}

type cursorLimitMeta struct {
	NextCursor *string `json:"next_cursor"`
	Limit      int     `json:"limit"`
}

func cursorData[R any, J any](rows []R, limit int, idOf func(R) string, show func(R) J) ([]J, *string) {
	var next *string
	if len(rows) > limit {
		rows = rows[:limit]
		c := EncodeCursor(idOf(rows[len(rows)-1]))
		next = &c
	}
	data := make([]J, 0, len(rows))
	for _, r := range rows {
		data = append(data, show(r))
	}
	return data, next
}

// PageScope starts a cursor listing: the caller's tenant and the id the
// page continues after (or before, for newest-first listings), or the
// error to answer (a foreign workspace's 404, a cursor that is not one of
// ours).
func PageScope(ctx context.Context, tenancy Tenancy, cursor string) (Tenant, string, error) {
	t, err := tenancy(ctx)
	if err != nil {
		return Tenant{}, "", err
	}
	from, err := DecodeCursor(cursor)
	if err != nil {
		return Tenant{}, "", err
	}
	return t, from, nil
}

// DefaultPerPage and MaxPerPage bound a numbered page.
const (
	DefaultPerPage = 25
	MaxPerPage     = 100
)

// NumberedParams are the arguments of a numbered listing, to embed in an
// operation's input: rest reads the embedded fields as the operation's
// own.
type NumberedParams struct {
	Page    int `json:"page,omitempty" in:"query" minimum:"1" jsonschema:"The page to show, from 1 (default 1)."`
	PerPage int `json:"per_page,omitempty" in:"query" minimum:"1" maximum:"100" jsonschema:"How many items per page (1-100, default 25)."`
}

// Window is the page asked for (from 1), its size and the number of rows
// before it, defaults applied.
func (p NumberedParams) Window() (page, perPage, offset int) {
	page, perPage = max(p.Page, 1), p.PerPage
	if perPage <= 0 {
		perPage = DefaultPerPage
	}
	perPage = min(perPage, MaxPerPage)
	return page, perPage, (page - 1) * perPage
}

// TotalFromPage is a numbered listing's total when its page proves it:
// a page of n rows read at offset with a limit of limit holds the last
// rows when it is short, so the listing has offset+n; an empty first page
// means none. known is false for a full page (more may follow) and for
// an empty page past the first (how far the listing reaches is not on it),
// where the caller counts. Read from the page's own statement, this total
// is the page's snapshot, where a separate count may see other writes
// (docs/decisions.md, "A total the page proves").
func TotalFromPage(offset, limit, n int) (total int, known bool) {
	switch {
	case n > 0 && n < limit:
		return offset + n, true
	case n == 0 && offset == 0:
		return 0, true
	}
	return 0, false
}

// NumberedMeta is the meta of a numbered page.
type NumberedMeta struct {
	Total      int `json:"total"`
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	TotalPages int `json:"total_pages"`
}

// NumberedPage answers a numbered listing: rows are the page's rows (at
// most perPage), total how many the whole listing has. A page past the
// last one is empty, with the same meta.
func NumberedPage[R any, J any](rows []R, page, perPage, total int, show func(R) J) *rest.Response {
	data := make([]J, 0, len(rows))
	for _, r := range rows {
		data = append(data, show(r))
	}
	pages := 0
	if perPage > 0 {
		pages = (total + perPage - 1) / perPage
	}
	return rest.OK(map[string]any{"data": data, "meta": NumberedMeta{Total: total, Page: page, PerPage: perPage, TotalPages: pages}})
}
