package webhooks

import (
	"context"
	"time"
)

// Purge removes the product's webhooks deleted before cutoff, with their
// deliveries (the foreign key cascades), so soft deletion does not keep
// targets, credentials and captured bodies forever. It returns how many
// webhooks went.
func (s *Service) Purge(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.Exec(ctx, `DELETE FROM webhooks WHERE product = ? AND deleted_at IS NOT NULL AND deleted_at < ?`, s.cfg.Product, cutoff.UTC())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
