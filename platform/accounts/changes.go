package accounts

import (
	"context"
	"sync/atomic"

	"github.com/kobana/kobana-mcp/platform/store"
)

// ChangeChannel is the SQL expression naming the PostgreSQL notification
// channel on which a change to what a signed-in request's identity read
// answers — a role, a membership, a grant's revocation — is announced, in
// the transaction that makes it, so every replica's cache of that read
// drops its entries once the change commits (oauth/server/sqlstore
// .RoleCache; docs/decisions.md, "Identity read cache"). Channels are
// per database, so the name carries the schema: deployments sharing a
// database in schemas of their own do not hear each other.
const ChangeChannel = "left('kobana_identity:' || current_schema(), 63)"

var generation atomic.Uint64

// Generation counts the identity changes this process has made. A cache of
// the identity read tags each entry with the generation it was read at and
// trusts it only while the generation is the same, so a change made here
// takes effect on this replica at once.
func Generation() uint64 { return generation.Load() }

// NoteChange records, inside q's transaction, that the identity read's
// answer changes: the process generation moves, and on PostgreSQL a
// notification goes out with the transaction's commit (none if it rolls
// back). The caller moves the generation again once it has committed
// (Committed), so an entry read between this call and the commit, which
// still saw the old row, is not trusted either.
func NoteChange(ctx context.Context, q store.Querier) error {
	generation.Add(1)
	if q.Dialect() != store.Postgres {
		return nil
	}
	_, err := q.Exec(ctx, "SELECT pg_notify("+ChangeChannel+", '')")
	return err
}

// Committed moves the process generation after a transaction that called
// NoteChange committed.
func Committed() { generation.Add(1) }
