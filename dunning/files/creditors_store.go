package files

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
)

// creditorRow is a row of dunning_creditors.
type creditorRow struct {
	OrganizationID string    `db:"organization_id"`
	LegalName      string    `db:"legal_name"`
	Document       string    `db:"document"`
	AddressJSON    *string   `db:"address"`
	UpdatedAt      time.Time `db:"updated_at"`
}

// loadCreditor is the organization's creditor row, store.ErrNotFound
// when it never set one.
func loadCreditor(ctx context.Context, q store.Querier, orgID string) (creditorRow, error) {
	var c creditorRow
	err := q.Get(ctx, &c, `SELECT * FROM dunning_creditors WHERE organization_id = ?`, orgID)
	return c, err
}

func (c creditorRow) address() *ledger.Address {
	if c.AddressJSON == nil {
		return nil
	}
	var a ledger.Address
	if err := json.Unmarshal([]byte(*c.AddressJSON), &a); err != nil {
		return nil
	}
	return &a
}

// upsertCreditor writes the organization's creditor, replacing the one
// it had.
func upsertCreditor(ctx context.Context, q store.Querier, orgID, name, doc string, addressJSON *string, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_creditors (organization_id, legal_name, document, address, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET legal_name = excluded.legal_name, document = excluded.document, address = excluded.address, updated_at = excluded.updated_at`,
		orgID, name, doc, addressJSON, now)
	return err
}
