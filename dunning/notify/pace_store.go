package notify

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/platform/store"
)

// reserveSlot moves provider's next slot one step on from
// max(next_us, now) when that slot is at most maxWait past now, and
// returns the new next_us (the reserved slot is one step before it) and
// true; the row's next_us and false when the slot is further away. The
// row is written first if missing. All in microseconds since the Unix
// epoch; one transaction, a writer's on SQLite.
func reserveSlot(ctx context.Context, db *store.DB, provider string, now, step, maxWait int64) (int64, bool, error) {
	var next int64
	ok := true
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO dunning_provider_pace (provider, next_us) VALUES (?, ?) ON CONFLICT (provider) DO NOTHING`,
			provider, now); err != nil {
			return err
		}
		err := tx.Get(ctx, &next, `UPDATE dunning_provider_pace SET next_us = CASE WHEN next_us < ? THEN ? ELSE next_us END + ?
			WHERE provider = ? AND next_us <= ? RETURNING next_us`, now, now, step, provider, now+maxWait)
		if errors.Is(err, store.ErrNotFound) {
			ok = false
			return tx.Get(ctx, &next, `SELECT next_us FROM dunning_provider_pace WHERE provider = ?`, provider)
		}
		return err
	})
	return next, ok, err
}
