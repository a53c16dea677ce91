package inbox

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/kobana/kobana-mcp/rest"
)

// Listings page by keyset: rows come ordered by id (UUIDv7, time-ordered),
// a page asks for limit+1 rows after the cursor's id, and the extra row
// only says that a next page exists. The cursor is opaque to clients (the
// last id of the page, base64url with a prefix), so the paging scheme can
// change without breaking them.

// defaultLimit and maxLimit bound a page (domain.md §A3: 1–200, default 50).
const (
	defaultLimit = 50
	maxLimit     = 200
)

const cursorPrefix = "c1:"

// pageLimit is the page size a request asked for, or the default.
func pageLimit(limit int) int {
	if limit <= 0 {
		return defaultLimit
	}
	return min(limit, maxLimit)
}

// encodeCursor makes the cursor that continues after id.
func encodeCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + id))
}

// decodeCursor returns the id a cursor continues after ("" for none), or
// a validation error naming the cursor argument.
func decodeCursor(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) || len(b) == len(cursorPrefix) {
		return "", rest.Validation("the request is invalid", rest.FieldError{Field: "cursor", Message: "is not a cursor of this listing"})
	}
	return string(b[len(cursorPrefix):]), nil
}

// pageResponse answers a listing: rows holds up to limit+1 rows as the
// query returned them; data is the first limit, shown through show, and
// meta.next_cursor continues after the last one when there are more.
func pageResponse[R any, J any](rows []R, limit int, idOf func(R) string, show func(R) J) *rest.Response {
	var next *string
	if len(rows) > limit {
		rows = rows[:limit]
		c := encodeCursor(idOf(rows[len(rows)-1]))
		next = &c
	}
	data := make([]J, 0, len(rows))
	for _, r := range rows {
		data = append(data, show(r))
	}
	return rest.OK(map[string]any{"data": data, "meta": map[string]any{"next_cursor": next}})
}

// pageScope starts a listing: the caller's workspace and the id the page
// continues after (or before, for newest-first listings), or the error to
// answer (a foreign workspace's 404, a cursor that is not one of ours).
func (s *service) pageScope(ctx context.Context, cursor string) (scope, string, error) {
	sc, err := s.workspaceScope(ctx)
	if err != nil {
		return scope{}, "", err
	}
	from, err := decodeCursor(cursor)
	if err != nil {
		return scope{}, "", err
	}
	return sc, from, nil
}
