package ledger

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Creditor is who the documents say is owed and who a Pix code pays
// (dunning_creditors): its legal name, CNPJ, address and Pix key. It lives
// in the ledger, below the files that print it and the notifications
// whose Pix code names its key (docs/dunning.md "Code layout").
type Creditor struct {
	OrganizationID string    `db:"organization_id"`
	LegalName      string    `db:"legal_name"`
	Document       string    `db:"document"`
	AddressJSON    *string   `db:"address"`
	UpdatedAt      time.Time `db:"updated_at"`
	// PixKey is the key as DICT holds it (brazil.NormalizePixKey), ""
	// for none; PixKeyType its type.
	PixKey     string `db:"pix_key"`
	PixKeyType string `db:"pix_key_type"`
	// PixMerchantName and PixMerchantCity are what the creditor set for
	// the BR Code, "" to derive them (PixReceiver).
	PixMerchantName string `db:"pix_merchant_name"`
	PixMerchantCity string `db:"pix_merchant_city"`
}

// LoadCreditor is the organization's creditor, store.ErrNotFound when it
// never set one.
func LoadCreditor(ctx context.Context, q store.Querier, orgID string) (Creditor, error) {
	var c Creditor
	err := q.Get(ctx, &c, `SELECT organization_id, legal_name, document, address, updated_at, pix_key, pix_key_type, pix_merchant_name, pix_merchant_city
		FROM dunning_creditors WHERE organization_id = ?`, orgID)
	return c, err
}

// UpsertCreditor writes the organization's creditor, replacing the one
// it had (its Pix key too: a PUT without one removes it).
func UpsertCreditor(ctx context.Context, q store.Querier, c Creditor) error {
	_, err := q.Exec(ctx, `INSERT INTO dunning_creditors (organization_id, legal_name, document, address, updated_at, pix_key, pix_key_type, pix_merchant_name, pix_merchant_city)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET legal_name = excluded.legal_name, document = excluded.document, address = excluded.address,
			updated_at = excluded.updated_at, pix_key = excluded.pix_key, pix_key_type = excluded.pix_key_type,
			pix_merchant_name = excluded.pix_merchant_name, pix_merchant_city = excluded.pix_merchant_city`,
		c.OrganizationID, c.LegalName, c.Document, c.AddressJSON, c.UpdatedAt, c.PixKey, c.PixKeyType, c.PixMerchantName, c.PixMerchantCity)
	return err
}

// Address is the creditor's address, nil without one.
func (c Creditor) Address() *Address {
	if c.AddressJSON == nil {
		return nil
	}
	var a Address
	if err := json.Unmarshal([]byte(*c.AddressJSON), &a); err != nil {
		return nil
	}
	return &a
}

// PixReceiver is who a Pix code of the creditor pays: its key and the
// BR Code's merchant name and city — the ones set, else the legal name and
// the address's city made BR Code text (brazil.PixText: upper-case ASCII,
// 25 and 15 characters). ok is false without a key or without a city to
// name (docs/decisions.md "Dunning: Pix BR Code").
func (c Creditor) PixReceiver() (r PixReceiver, ok bool) {
	if c.PixKey == "" {
		return PixReceiver{}, false
	}
	// r is filled as far as it goes even when !ok, so a caller can say
	// which of name and city is missing.
	r = PixReceiver{Key: c.PixKey, KeyType: c.PixKeyType, MerchantName: c.PixMerchantName, MerchantCity: c.PixMerchantCity}
	if r.MerchantName == "" {
		r.MerchantName = brazil.PixText(c.LegalName, brazil.PixMaxMerchantName)
	}
	if r.MerchantCity == "" {
		if a := c.Address(); a != nil {
			r.MerchantCity = brazil.PixText(a.City, brazil.PixMaxMerchantCity)
		}
	}
	return r, r.MerchantName != "" && r.MerchantCity != ""
}

// PixReceiver is the receiving side of the creditor's Pix codes.
type PixReceiver struct {
	Key          string `json:"key"`
	KeyType      string `json:"key_type"`
	MerchantName string `json:"merchant_name"`
	MerchantCity string `json:"merchant_city"`
}
