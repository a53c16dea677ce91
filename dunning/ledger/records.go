package ledger

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// The rows every part of Dunning shares — debtors and their opt-outs,
// charges and payments; the settings are in settings.go — as Go types
// that mirror the tables of migrations 00200 and 00210 column for column
// (db tags). Their organization-scoped loaders, which the operations, the
// scheduler and the notifications all use, are in the stores
// (debtors_store.go, charges_store.go, settings_store.go). Percentages
// are stored as latefee.Percent, ten-thousandths of a percent (2 % =
// 20000), as the columns' own comments say; money is integer cents
// (money.Cents); JSON columns are TEXT, decoded into the fields tagged
// db:"-" when a row is loaded (Decode).

// Channels a debtor is contacted on.
const (
	ChannelEmail    = "email"
	ChannelSMS      = "sms"
	ChannelWhatsApp = "whatsapp"
)

// Channels lists every channel in the order the API shows them.
var Channels = []string{ChannelEmail, ChannelSMS, ChannelWhatsApp}

// Person kinds, as dunning_debtors.person_kind stores them: they follow
// from the document (a CPF is a natural person, a CNPJ a juridical one).
const (
	PersonNatural   = "natural"
	PersonJuridical = "juridical"
)

// Debtor statuses.
const (
	DebtorActive   = "active"
	DebtorArchived = "archived"
)

// Address is a debtor's postal address (dunning_debtors.address).
type Address struct {
	Street     string `json:"street,omitempty" maxLength:"200" jsonschema:"Street (logradouro)."`
	Number     string `json:"number,omitempty" maxLength:"20" jsonschema:"Number."`
	Complement string `json:"complement,omitempty" maxLength:"100" jsonschema:"Complement (apartment, suite)."`
	District   string `json:"district,omitempty" maxLength:"100" jsonschema:"District (bairro)."`
	City       string `json:"city,omitempty" maxLength:"100" jsonschema:"City."`
	State      string `json:"state,omitempty" maxLength:"2" jsonschema:"State, its two-letter code (SP, RJ…)."`
	Zip        string `json:"zip,omitempty" maxLength:"9" jsonschema:"Postal code (CEP), 8 digits with or without the hyphen."`
}

// Debtor is a person or company that owes the organization
// (dunning_debtors). Document is digits only (and the letters of a 2026
// alphanumeric CNPJ): brazil.FormatDocument shows it.
type Debtor struct {
	ID             string    `db:"id"`
	OrganizationID string    `db:"organization_id"`
	ExternalID     string    `db:"external_id"`
	Name           string    `db:"name"`
	Document       string    `db:"document"`
	PersonKind     string    `db:"person_kind"`
	EmailsJSON     string    `db:"emails"`
	PhonesJSON     string    `db:"phones"`
	AddressJSON    *string   `db:"address"`
	Status         string    `db:"status"`
	CreatedAt      time.Time `db:"created_at"`
	UpdatedAt      time.Time `db:"updated_at"`
	// What the listing's counter counts it as (syncDebtorCount).
	CountedStatus *string    `db:"counted_status"`
	ArchivedAt    *time.Time `db:"archived_at"`

	// Decoded when loaded; OptOuts are the debtor's rows of
	// dunning_opt_outs, by channel.
	Emails  []string `db:"-"`
	Phones  []string `db:"-"`
	Address *Address `db:"-"`
	OptOuts []OptOut `db:"-"`
}

// OptedOut reports whether the debtor must never be contacted on channel.
func (d Debtor) OptedOut(channel string) bool {
	for _, o := range d.OptOuts {
		if o.Channel == channel {
			return true
		}
	}
	return false
}

// FeeKind is the debtor's kind as latefee's caps know it: a natural
// person is a consumer (the 2 % fine cap of the law), a juridical person
// a company (the organization's cap).
func (d Debtor) FeeKind() latefee.DebtorKind {
	if d.PersonKind == PersonJuridical {
		return latefee.Company
	}
	return latefee.NaturalPerson
}

// Decode fills a loaded debtor's contacts and address from their JSON
// columns.
func (d *Debtor) Decode() error {
	d.Emails, d.Phones, d.Address = []string{}, []string{}, nil
	if err := json.Unmarshal([]byte(d.EmailsJSON), &d.Emails); err != nil {
		return fmt.Errorf("dunning: debtor emails: %w", err)
	}
	if err := json.Unmarshal([]byte(d.PhonesJSON), &d.Phones); err != nil {
		return fmt.Errorf("dunning: debtor phones: %w", err)
	}
	if d.AddressJSON != nil {
		d.Address = &Address{}
		if err := json.Unmarshal([]byte(*d.AddressJSON), d.Address); err != nil {
			return fmt.Errorf("dunning: debtor address: %w", err)
		}
	}
	return nil
}

// OptOut is a debtor's refusal of a channel (dunning_opt_outs): when
// (CreatedAt), why (Reason) and who recorded it (Source: "debtor" for a
// link or reply, else a user id).
type OptOut struct {
	DebtorID       string    `db:"debtor_id" json:"-"`
	OrganizationID string    `db:"organization_id" json:"-"`
	Channel        string    `db:"channel" json:"channel"`
	Reason         string    `db:"reason" json:"reason"`
	Source         string    `db:"source" json:"source"`
	CreatedAt      time.Time `db:"created_at" json:"created_at"`
}

// Charge is a debt of a debtor (título, dunning_charges). OpenAmount is
// what is still owed of Amount; payments lower it. Status changes only
// through lifecycle.Charges.
type Charge struct {
	ID             string                 `db:"id"`
	OrganizationID string                 `db:"organization_id"`
	DebtorID       string                 `db:"debtor_id"`
	ExternalID     *string                `db:"external_id"`
	Amount         money.Cents            `db:"amount_cents"`
	OpenAmount     money.Cents            `db:"open_amount_cents"`
	DueDateText    string                 `db:"due_date"`
	Description    string                 `db:"description"`
	Fine           latefee.Percent        `db:"fine"`
	Interest       latefee.Percent        `db:"interest"`
	Origin         string                 `db:"origin"`
	OriginRef      *string                `db:"origin_ref"`
	Barcode        *string                `db:"barcode"`
	PaymentLink    *string                `db:"payment_link"`
	TagsJSON       string                 `db:"tags"`
	CustomDataJSON string                 `db:"custom_data"`
	Status         lifecycle.ChargeStatus `db:"status"`
	ArchivedAt     *time.Time             `db:"archived_at"`
	OverdueAt      *time.Time             `db:"overdue_at"`
	PaidAt         *time.Time             `db:"paid_at"`
	CanceledAt     *time.Time             `db:"canceled_at"`
	LastNotifiedAt *time.Time             `db:"last_notified_at"`
	CreatedAt      time.Time              `db:"created_at"`
	UpdatedAt      time.Time              `db:"updated_at"`
	// What the listing's counters count it as (syncChargeCount).
	CountedStatus   *string `db:"counted_status"`
	CountedArchived *int    `db:"counted_archived"`
	CountedCents    *int64  `db:"counted_cents"`
	// The ledger (ledger.go, migration 00285): fine and interest
	// crystallised by payments and still unpaid, whether the one-time
	// fine was assessed, and the day interest on OpenAmount (the
	// principal left) accrues from, "" for the due date.
	FineDue         money.Cents `db:"fine_due_cents"`
	InterestDue     money.Cents `db:"interest_due_cents"`
	FineAssessed    bool        `db:"fine_assessed"`
	AccrualFromText *string     `db:"accrual_from"`
	// DebtorKind is the debtor's person_kind as it is now, read with the
	// charge (chargeSelect): the caps of chargeBreakdown follow it.
	DebtorKind string `db:"debtor_person_kind"`

	// Decoded when loaded.
	DueDate     bankcalendar.Date `db:"-"`
	AccrualFrom bankcalendar.Date `db:"-"`
	Tags        []string          `db:"-"`
	CustomData  map[string]any    `db:"-"`
}

// Charge origins (dunning_charges.origin).
const (
	OriginBankBillet = "bank_billet"
	OriginPix        = "pix"
	OriginInvoice    = "invoice"
	OriginExternal   = "external"
)

// Decode fills a loaded charge's dates, tags and custom data from their
// text columns; tags and custom data are never nil after it.
func (c *Charge) Decode() error {
	d, err := bankcalendar.ParseDate(c.DueDateText)
	if err != nil {
		return fmt.Errorf("dunning: charge due_date: %w", err)
	}
	c.DueDate = d
	c.AccrualFrom = bankcalendar.Date{}
	if c.AccrualFromText != nil && *c.AccrualFromText != "" {
		if c.AccrualFrom, err = bankcalendar.ParseDate(*c.AccrualFromText); err != nil {
			return fmt.Errorf("dunning: charge accrual_from: %w", err)
		}
	}
	c.Tags, c.CustomData = []string{}, map[string]any{}
	// The usual empty tags and custom data need no decoder (a page of
	// charges decodes each row).
	if c.TagsJSON != "[]" {
		if err := json.Unmarshal([]byte(c.TagsJSON), &c.Tags); err != nil {
			return fmt.Errorf("dunning: charge tags: %w", err)
		}
	}
	if c.CustomDataJSON != "{}" {
		if err := json.Unmarshal([]byte(c.CustomDataJSON), &c.CustomData); err != nil {
			return fmt.Errorf("dunning: charge custom_data: %w", err)
		}
	}
	if c.Tags == nil {
		c.Tags = []string{}
	}
	if c.CustomData == nil {
		c.CustomData = map[string]any{}
	}
	return nil
}

// Payment is money received against a charge (dunning_payments).
type Payment struct {
	ID             string      `db:"id"`
	OrganizationID string      `db:"organization_id"`
	ChargeID       string      `db:"charge_id"`
	Amount         money.Cents `db:"amount_cents"`
	PaidAt         time.Time   `db:"paid_at"`
	// Method is pix, bank_billet, card, cash, transfer or other.
	Method    string    `db:"method"`
	Reference *string   `db:"reference"`
	CreatedBy string    `db:"created_by"`
	CreatedAt time.Time `db:"created_at"`
	// How it was imputed (latefee.Impute): interest, fine, principal.
	AppliedInterest  money.Cents `db:"applied_interest_cents"`
	AppliedFine      money.Cents `db:"applied_fine_cents"`
	AppliedPrincipal money.Cents `db:"applied_principal_cents"`
}

// Applied is how the payment was imputed.
func (p Payment) Applied() latefee.Applied {
	return latefee.Applied{Interest: p.AppliedInterest, Fine: p.AppliedFine, Principal: p.AppliedPrincipal}
}

// PaymentMethods are the accepted dunning_payments.method values.
var PaymentMethods = []string{"pix", "bank_billet", "card", "cash", "transfer", "other"}

// MustJSON is v as the JSON a TEXT column keeps.
func MustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only types that always marshal are passed
	}
	return string(b)
}
