package ledger

import (
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL helpers every store of the package (and of the layers above)
// shares: the row lock of a read-modify-write, the LIKE pattern of a text
// filter and the placeholders of an IN list. Both engines, SQLite and
// PostgreSQL, run the same text with ? placeholders (platform/store).

// ForUpdate locks the rows a SELECT reads until the transaction ends, on
// PostgreSQL; SQLite transactions already hold the write lock from BEGIN
// IMMEDIATE (platform/store), so it needs nothing.
func ForUpdate(q store.Querier) string {
	if q.Dialect() == store.Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// LikeContains is a LIKE pattern (with ESCAPE '\') matching text
// anywhere: the caller's % and _ match themselves.
func LikeContains(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(text) + "%"
}

// inList is the placeholders of an IN list of ids and its arguments,
// after the organization's id.
func inList(orgID string, ids []string) (string, []any) {
	args := []any{orgID}
	for _, id := range ids {
		args = append(args, id)
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", "), args
}

// sortDirection is the SQL order of a listing's sort_order: DESC for
// "desc", else ASC (the default).
func sortDirection(order string) string {
	if order == "desc" {
		return "DESC"
	}
	return "ASC"
}
