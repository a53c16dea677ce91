package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/riverqueue/river/rivertype"

	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The organization share is work-conserving (docs/decisions.md, "A
// work-conserving organization share"): a job over its organization's
// share is snoozed only while another organization has a job of the
// kind waiting. To tell that without decoding waiting jobs' args (a lone
// organization may have 100 000 of them), every Organizational job
// carries its organization in its metadata (riverschema.OrgKey), stamped
// at insert by stampOrganizations, and an index of ours on river_job
// (riverschema, ensureOrgIndex) orders the available jobs by kind and
// organization: "an available job of kind K whose organization is not A"
// is two index seeks, one each side of A, plus one for the jobs stored
// without a key (and one more for each other organization already at its
// share, which is skipped the same way).

// stampOrganizations is the queue's insert middleware: it writes the
// organization of each Organizational job into the metadata River
// stores with it, on every insert path (Enqueue, EnqueueTx, and any
// other River insert of this client), keeping the caller's metadata.
func stampOrganizations(ctx context.Context, many []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	for _, p := range many {
		o, ok := p.Args.(Organizational)
		if !ok {
			continue
		}
		org := o.OrganizationKey()
		if org == "" {
			continue
		}
		meta, err := withOrganization(p.Metadata, org)
		if err != nil {
			return nil, fmt.Errorf("jobs: %s: the organization in metadata: %w", p.Kind, err)
		}
		p.Metadata = meta
	}
	return doInner(ctx)
}

// withOrganization is metadata (a JSON object, empty for none) with
// riverschema.OrgKey set to org.
func withOrganization(metadata []byte, org string) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if len(metadata) > 0 {
		if err := json.Unmarshal(metadata, &m); err != nil {
			return nil, err
		}
		if m == nil { // the metadata was JSON null
			m = map[string]json.RawMessage{}
		}
	}
	v, err := json.Marshal(org)
	if err != nil {
		return nil, err
	}
	m[riverschema.OrgKey] = v
	return json.Marshal(m)
}

// othersWaiting reports whether a job of kind waits whose organization
// is not one of except (the asking job's own and those already at their
// share): available and due (scheduled_at reached; a job snoozed for
// later is not waiting yet). Each stretch of organizations between two
// of except is one EXISTS that stops at its first due row, so the
// excepted organizations' waiting jobs are never scanned. A job stored
// without an organization — inserted before the key was stamped — counts
// as another organization's: it may be, and fairness then stays as
// strict as it was until such jobs are gone, rather than a lone
// organization's old jobs being decoded one by one. An error counts as
// waiting (the strict share, as before).
func (q *Queue) othersWaiting(ctx context.Context, kind string, except []string) bool {
	except = slices.Compact(slices.Sorted(slices.Values(except)))
	expr := riverschema.OrgExpr(q.db.Dialect())
	from := "EXISTS (SELECT 1 FROM " + q.table("river_job") + " WHERE kind = ? AND state = 'available' AND scheduled_at <= " + nowSQL(q.db.Dialect()) + " AND " + expr
	parts := []string{from + " IS NULL)"}
	args := []any{kind}
	for i, e := range except {
		if i == 0 {
			parts = append(parts, from+" < ?)")
			args = append(args, kind, e)
		} else {
			parts = append(parts, from+" > ? AND "+expr+" < ?)")
			args = append(args, kind, except[i-1], e)
		}
	}
	if len(except) > 0 {
		parts = append(parts, from+" > ?)")
		args = append(args, kind, except[len(except)-1])
	} else {
		parts = append(parts, from+" IS NOT NULL)")
		args = append(args, kind)
	}
	var waiting bool
	if err := q.db.Get(ctx, &waiting, "SELECT "+strings.Join(parts, " OR "), args...); err != nil {
		q.log.Warn("jobs: looking for other organizations' waiting jobs", "kind", kind, "err", err)
		return true
	}
	return waiting
}

// nowSQL is the present as River compares it with scheduled_at on d (on
// SQLite its timestamps are text, and "due" is datetime('now', 'subsec')).
func nowSQL(d store.Dialect) string {
	if d == store.SQLite {
		return "datetime('now', 'subsec')"
	}
	return "now()"
}
