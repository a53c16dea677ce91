package dunning

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The tests' one seeder of debtors and charges: rows written straight to
// the tables the way the product's own writes leave them (E.164 phones,
// a digits-only document, the listing counts kept), for a test that
// needs many of them or a state the API does not reach directly.

// debtorSeed is what a seeded debtor differs in.
type debtorSeed struct {
	OrgID    string
	Name     string
	Emails   []string
	Phones   []string
	Document string // "" is a valid CPF, 52998224725 (with Kind natural)
	Kind     string
	Status   string // "" is active
}

// seedDebtor inserts a debtor and answers its id; its external id is
// "ext-" and the id.
func seedDebtor(t testing.TB, db *store.DB, f debtorSeed) string {
	t.Helper()
	if f.Document == "" {
		f.Document, f.Kind = "52998224725", ledger.PersonNatural
	}
	if f.Status == "" {
		f.Status = ledger.DebtorActive
	}
	if f.Emails == nil {
		f.Emails = []string{}
	}
	if f.Phones == nil {
		f.Phones = []string{}
	}
	id := store.NewID()
	now := store.Now()
	emails, _ := json.Marshal(f.Emails)
	phones, _ := json.Marshal(f.Phones)
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind,
		emails, phones, address, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
		id, f.OrgID, "ext-"+id, f.Name, f.Document, f.Kind, string(emails), string(phones), f.Status, now, now); err != nil {
		t.Fatal(err)
	}
	if err := ledger.SyncDebtorCount(context.Background(), db, id); err != nil {
		t.Fatal(err)
	}
	return id
}

// Late fees of a seeded charge unless it says otherwise, in
// ten-thousandths of a percent: a 2 % fine and 1 % interest a month.
const (
	seedFine     = 20000
	seedInterest = 10000
)

// chargeSeed is what a seeded charge differs in.
type chargeSeed struct {
	OrgID, DebtorID string
	ExternalID      string // "" is none
	Amount          int64  // in cents; 0 is R$ 1.000,00
	Due             string
	Description     string // "" is Mensalidade
	// Fine and Interest in ten-thousandths of a percent (2 % = 20000);
	// both zero are seedFine and seedInterest unless NoFees.
	Fine, Interest int64
	NoFees         bool
	PaymentLink    string
	Status         string // "" is pending
}

// seedCharge inserts a charge and answers its id.
func seedCharge(t testing.TB, db *store.DB, f chargeSeed) string {
	t.Helper()
	if f.Status == "" {
		f.Status = "pending"
	}
	if f.Description == "" {
		f.Description = "Mensalidade"
	}
	if f.Amount == 0 {
		f.Amount = 100000
	}
	if f.Fine == 0 && f.Interest == 0 && !f.NoFees {
		f.Fine, f.Interest = seedFine, seedInterest
	}
	var ext, link *string
	if f.ExternalID != "" {
		ext = &f.ExternalID
	}
	if f.PaymentLink != "" {
		link = &f.PaymentLink
	}
	id := store.NewID()
	now := store.Now()
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_charges (id, organization_id, debtor_id, external_id, amount_cents,
		open_amount_cents, due_date, description, fine, interest, origin, origin_ref, barcode, payment_link, tags, custom_data, status,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'external', NULL, NULL, ?, '[]', '{}', ?, ?, ?)`,
		id, f.OrgID, f.DebtorID, ext, f.Amount, f.Amount, f.Due, f.Description, f.Fine, f.Interest, link, f.Status, now, now); err != nil {
		t.Fatal(err)
	}
	if err := ledger.SyncChargeCount(context.Background(), db, id); err != nil {
		t.Fatal(err)
	}
	return id
}
