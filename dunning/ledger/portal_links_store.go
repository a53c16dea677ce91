package ledger

import (
	"context"
	"errors"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of the debtors' link state (dunning_portal_links): one row per
// debtor whose link was ever rotated or revoked; none is generation 0,
// open.

// PortalLinkState is a debtor's link generation and revocation.
type PortalLinkState struct {
	Generation int        `db:"generation"`
	RevokedAt  *time.Time `db:"revoked_at"`
	RevokedBy  *string    `db:"revoked_by"`
}

// Revoked reports whether no link of the debtor opens the page.
func (s PortalLinkState) Revoked() bool { return s.RevokedAt != nil }

// LoadPortalLinkState is the debtor's link state.
func LoadPortalLinkState(ctx context.Context, q store.Querier, orgID, debtorID string) (PortalLinkState, error) {
	var s PortalLinkState
	err := q.Get(ctx, &s, `SELECT generation, revoked_at, revoked_by FROM dunning_portal_links WHERE organization_id = ? AND debtor_id = ?`, orgID, debtorID)
	if errors.Is(err, store.ErrNotFound) {
		return PortalLinkState{}, nil
	}
	return s, err
}

// RotatePortalLink raises the debtor's generation and lifts a revocation:
// every link made before stops working, and new ones open the page.
func RotatePortalLink(ctx context.Context, q store.Querier, orgID, debtorID string, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_portal_links (organization_id, debtor_id, generation, revoked_at, revoked_by, updated_at)
		VALUES (?, ?, 1, NULL, NULL, ?)
		ON CONFLICT (organization_id, debtor_id) DO UPDATE SET generation = dunning_portal_links.generation + 1, revoked_at = NULL, revoked_by = NULL,
			updated_at = excluded.updated_at`, orgID, debtorID, now)
	return err
}

// PortalRevokedByArchive is the revoked_by of a debtor's links revoked
// by archiving the debtor.
const PortalRevokedByArchive = "archive"

// RevokePortalLink closes every link of the debtor until the next
// rotation; by is who asked ("debtor" from the page, or a person or
// client). Revoking again keeps the first revocation.
func RevokePortalLink(ctx context.Context, q store.Querier, orgID, debtorID, by string, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_portal_links (organization_id, debtor_id, generation, revoked_at, revoked_by, updated_at)
		VALUES (?, ?, 0, ?, ?, ?)
		ON CONFLICT (organization_id, debtor_id) DO UPDATE SET revoked_at = COALESCE(dunning_portal_links.revoked_at, excluded.revoked_at),
			revoked_by = COALESCE(dunning_portal_links.revoked_by, excluded.revoked_by), updated_at = excluded.updated_at`, orgID, debtorID, now, by, now)
	return err
}
