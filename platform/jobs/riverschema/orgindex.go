package riverschema

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/store"
)

// OrgKey is the metadata key under which the job queue (platform/jobs)
// stores the organization of a job whose args are Organizational, at
// insert, so that "is another organization's job of this kind waiting?"
// is answered from an index instead of decoding every waiting job's args
// (docs/decisions.md, "A work-conserving organization share"). River
// reserves "river:" keys for itself; ours start with "kobana:".
const OrgKey = "kobana:org"

// orgIndex is the name of the index of ours on River's river_job: the
// available jobs by kind, organization (OrgExpr) and scheduled_at. A
// change of its definition takes a new name.
const orgIndex = "river_job_kobana_org_available"

// OrgExpr is the SQL expression that reads a job's OrgKey from its
// metadata on d, exactly as the index is defined (SQLite uses an
// expression index only for the same expression, written the same way):
// NULL for a job inserted without it.
func OrgExpr(d store.Dialect) string {
	if d == store.Postgres {
		return "(metadata->>'" + OrgKey + "')"
	}
	// River's SQLite driver stores metadata as binary JSONB (or text, for
	// rows it wrote earlier): json_extract reads both.
	return `json_extract(metadata, '$."` + OrgKey + `"')`
}

// ensureOrgIndex creates the index of ours on river_job when it is
// missing. It runs after River's own migrations, every time they run,
// rather than as one of the project's migrations (platform/store): those
// run before River's tables exist, and River's SQLite migrations rebuild
// river_job (a new table copied over), which drops every index River did
// not make; checked after each of River's migrations, ours comes back.
// The existence check comes first so that an ordinary start takes no lock
// on river_job (CREATE INDEX IF NOT EXISTS would lock it on PostgreSQL
// even when the index exists).
func ensureOrgIndex(ctx context.Context, db *store.DB, schema string) error {
	var n int
	var err error
	table := "river_job"
	if db.Dialect() == store.Postgres {
		name := orgIndex
		if schema != "" {
			name = `"` + schema + `".` + orgIndex
			table = `"` + schema + `".river_job`
		}
		err = db.Get(ctx, &n, "SELECT count(*) FROM pg_class WHERE oid = to_regclass(?)", name)
	} else {
		err = db.Get(ctx, &n, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", orgIndex)
	}
	if err != nil {
		return fmt.Errorf("jobs: look for %s on %s: %w", orgIndex, db, err)
	}
	if n > 0 {
		return nil
	}
	_, err = db.Exec(ctx, "CREATE INDEX IF NOT EXISTS "+orgIndex+" ON "+table+
		" (kind, "+OrgExpr(db.Dialect())+", scheduled_at) WHERE state = 'available'")
	if err != nil {
		return fmt.Errorf("jobs: create %s on %s: %w", orgIndex, db, err)
	}
	return nil
}
