package notify

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// RecordOptOut records that the debtor refuses channel, once: a second click
// keeps the first row (its date and reason), so the link is idempotent.
func RecordOptOut(ctx context.Context, q store.Querier, orgID, debtorID, channel, reason, source string, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_opt_outs (debtor_id, organization_id, channel, reason, source, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (debtor_id, channel) DO NOTHING`, debtorID, orgID, channel, reason, source, now)
	return err
}
