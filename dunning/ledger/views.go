package ledger

import (
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/money"
)

// The records as the API, the MCP tools and the webhook events show them:
// one shape each, so a debtor or a charge reads the same wherever it
// appears.

// DebtorJSON is a debtor as the API shows it: the document formatted
// (123.456.789-09), opt-outs by channel with when and why.
type DebtorJSON struct {
	ID         string                 `json:"id"`
	ExternalID string                 `json:"external_id"`
	Name       string                 `json:"name"`
	Document   string                 `json:"document"`
	PersonKind string                 `json:"person_kind"`
	Emails     []string               `json:"emails"`
	Phones     []string               `json:"phones"`
	Address    *Address               `json:"address"`
	OptOuts    map[string]*optOutJSON `json:"opt_outs"`
	Status     string                 `json:"status"`
	CreatedAt  time.Time              `json:"created_at"`
	UpdatedAt  time.Time              `json:"updated_at"`
	ArchivedAt *time.Time             `json:"archived_at"`
}

// optOutJSON is why and since when a debtor must not be contacted on a
// channel; debtorJSON.opt_outs has one per channel, null when the debtor
// may be contacted on it.
type optOutJSON struct {
	Reason    string    `json:"reason"`
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"created_at"`
}

// ShowDebtor is a debtor as the API, the events and the documents show it.
func ShowDebtor(d Debtor) DebtorJSON {
	opt := map[string]*optOutJSON{}
	for _, ch := range Channels {
		opt[ch] = nil
	}
	for _, o := range d.OptOuts {
		opt[o.Channel] = &optOutJSON{Reason: o.Reason, Source: o.Source, CreatedAt: o.CreatedAt}
	}
	return DebtorJSON{ID: d.ID, ExternalID: d.ExternalID, Name: d.Name, Document: brazil.FormatDocument(d.Document),
		PersonKind: d.PersonKind, Emails: d.Emails, Phones: d.Phones, Address: d.Address, OptOuts: opt, Status: d.Status,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, ArchivedAt: d.ArchivedAt}
}

// ChargeJSON is a charge as the API shows it, with what it costs on
// amounts_on (updated_amount = open_amount + fine_amount +
// interest_amount), computed by the server: no client adds money up.
type ChargeJSON struct {
	ID              string            `json:"id"`
	ExternalID      *string           `json:"external_id"`
	DebtorID        string            `json:"debtor_id"`
	Amount          money.Cents       `json:"amount"`
	OpenAmount      money.Cents       `json:"open_amount"`
	PaidAmount      money.Cents       `json:"paid_amount"`
	FineAmount      money.Cents       `json:"fine_amount"`
	InterestAmount  money.Cents       `json:"interest_amount"`
	UpdatedAmount   money.Cents       `json:"updated_amount"`
	DaysLate        int               `json:"days_late"`
	AmountsOn       bankcalendar.Date `json:"amounts_on"`
	DueDate         bankcalendar.Date `json:"due_date"`
	Description     string            `json:"description"`
	FinePercent     latefee.Percent   `json:"fine_percent"`
	InterestPercent latefee.Percent   `json:"interest_percent"`
	Origin          string            `json:"origin"`
	OriginRef       *string           `json:"origin_ref"`
	Barcode         *string           `json:"barcode"`
	PaymentLink     *string           `json:"payment_link"`
	Tags            []string          `json:"tags"`
	CustomData      map[string]any    `json:"custom_data"`
	Status          string            `json:"status"`
	Archived        bool              `json:"archived"`
	ArchivedAt      *time.Time        `json:"archived_at"`
	OverdueAt       *time.Time        `json:"overdue_at"`
	PaidAt          *time.Time        `json:"paid_at"`
	CanceledAt      *time.Time        `json:"canceled_at"`
	LastNotifiedAt  *time.Time        `json:"last_notified_at"`
	CreatedAt       time.Time         `json:"created_at"`
	UpdatedAt       time.Time         `json:"updated_at"`
}

// ShowCharge is c as the API shows it, with its breakdown b on date on
// (chargeBreakdown).
func ShowCharge(c Charge, b latefee.Breakdown, on bankcalendar.Date) ChargeJSON {
	return ChargeJSON{ID: c.ID, ExternalID: c.ExternalID, DebtorID: c.DebtorID, Amount: c.Amount, OpenAmount: c.OpenAmount,
		PaidAmount: c.Amount - c.OpenAmount, FineAmount: b.Fine, InterestAmount: b.Interest, UpdatedAmount: b.Updated,
		DaysLate: b.DaysLate, AmountsOn: on, DueDate: c.DueDate, Description: c.Description, FinePercent: c.Fine,
		InterestPercent: c.Interest, Origin: c.Origin, OriginRef: c.OriginRef, Barcode: c.Barcode, PaymentLink: c.PaymentLink,
		Tags: c.Tags, CustomData: c.CustomData, Status: string(c.Status), Archived: c.ArchivedAt != nil, ArchivedAt: c.ArchivedAt,
		OverdueAt: c.OverdueAt, PaidAt: c.PaidAt, CanceledAt: c.CanceledAt, LastNotifiedAt: c.LastNotifiedAt,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// paymentJSON is a payment as the API shows it.
type paymentJSON struct {
	ID        string      `json:"id"`
	ChargeID  string      `json:"charge_id"`
	Amount    money.Cents `json:"amount"`
	PaidAt    time.Time   `json:"paid_at"`
	Method    string      `json:"method"`
	Reference *string     `json:"reference"`
	CreatedBy string      `json:"created_by"`
	CreatedAt time.Time   `json:"created_at"`
	// Applied is how the payment was imputed: interest, fine, principal
	// (Código Civil art. 354, or the organization's principal_first).
	Applied latefee.Applied `json:"applied"`
}

func showPayment(p Payment) paymentJSON {
	return paymentJSON{ID: p.ID, ChargeID: p.ChargeID, Amount: p.Amount, PaidAt: p.PaidAt, Method: p.Method,
		Reference: p.Reference, CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt, Applied: p.Applied()}
}
