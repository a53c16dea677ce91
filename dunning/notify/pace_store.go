package notify

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// reserveSlot takes provider's next slot, max(next_us, now) with now
// read once the row is locked (a clock read before waiting for the lock
// would be stale, and the slot then in the past), moves next_us one step
// after it, and returns the slot. The row is written first if missing.
// In microseconds since the Unix epoch; one transaction, a writer's on
// SQLite.
func reserveSlot(ctx context.Context, db *store.DB, provider string, now func() time.Time, step int64) (int64, error) {
	var slot int64
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO dunning_provider_pace (provider, next_us) VALUES (?, 0) ON CONFLICT (provider) DO NOTHING`,
			provider); err != nil {
			return err
		}
		lock := ""
		if tx.Dialect() == store.Postgres {
			lock = " FOR UPDATE"
		}
		if err := tx.Get(ctx, &slot, `SELECT next_us FROM dunning_provider_pace WHERE provider = ?`+lock, provider); err != nil {
			return err
		}
		slot = max(slot, now().UnixMicro())
		_, err := tx.Exec(ctx, `UPDATE dunning_provider_pace SET next_us = ? WHERE provider = ?`, slot+step, provider)
		return err
	})
	return slot, err
}

// paceNext reads provider's next slot.
func paceNext(ctx context.Context, q store.Querier, provider string) (int64, error) {
	var next int64
	err := q.Get(ctx, &next, `SELECT next_us FROM dunning_provider_pace WHERE provider = ?`, provider)
	return next, err
}
