package ledger

import (
	"context"
	"slices"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// readNumberedPage reads a numbered listing's page into dest and the
// listing's total. pageSQL ends in `LIMIT ? OFFSET ?` and takes args, then
// limit and offset; countSQL takes args. The page is read first: a short
// one, or an empty first page, is its own total (restkit.TotalFromPage),
// so countSQL runs only for a full page or past the end (docs/decisions.md,
// "A total the page proves").
func readNumberedPage[T any](ctx context.Context, q store.Querier, dest *[]T, pageSQL, countSQL string, args []any, limit, offset int) (int, error) {
	if err := q.Select(ctx, dest, pageSQL, append(slices.Clip(args), limit, offset)...); err != nil {
		return 0, err
	}
	if total, ok := restkit.TotalFromPage(offset, limit, len(*dest)); ok {
		return total, nil
	}
	var total int
	err := q.Get(ctx, &total, countSQL, args...)
	return total, err
}
