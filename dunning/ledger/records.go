package ledger

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/calendar"
	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/schedule"
	"github.com/kobana/kobana-mcp/platform/money"
)

// The rows every part of Dunning shares — the organization's settings,
// debtors and their opt-outs, charges and payments — as Go types that
// mirror the tables of migrations 00200 and 00210 column for column (db
// tags), plus the organization-scoped loaders the operations, the
// scheduler and the notifications all use. Percentages are stored as
// latefee.Percent, ten-thousandths of a percent (2 % = 20000), as the
// columns' own comments say; money is integer cents (money.Cents); JSON
// columns are TEXT, decoded into the fields tagged db:"-" when a row is
// loaded by the functions here.

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

// Defaults of an organization that never changed its settings (docs/dunning.md
// "Dunning: debtors, charges and payments").
const (
	DefaultTimezone   = "America/Sao_Paulo"
	DefaultQuietStart = "20:00"
	DefaultQuietEnd   = "08:00"
	DefaultGraceDays  = 0
	DefaultProvider   = "outbox"
	// DefaultPriorNoticeDays: a report needs a notice sent 10 days before
	// (CDC art. 43 §2, as the bureaus apply it).
	DefaultPriorNoticeDays = 10
	// DefaultAgreementMaxDiscount: 30 % of the updated amount.
	DefaultAgreementMaxDiscount latefee.Percent = 30 * latefee.OnePercent
	// DefaultAgreementGraceDays an installment may be late.
	DefaultAgreementGraceDays = 5
)

// ChannelSetting is whether a channel is used and which provider sends on
// it: "outbox" (kept in the database, the embedded default), "smtp"
// (e-mail) or "twilio" (SMS and WhatsApp).
type ChannelSetting struct {
	Enabled  bool   `json:"enabled"`
	Provider string `json:"provider"`
}

// Settings are an organization's collection settings (dunning_settings).
// An organization without a row has the defaults (DefaultSettings), and
// Stored tells the two apart.
type Settings struct {
	OrganizationID string `db:"organization_id"`
	// Timezone is the IANA zone plans' send times and the daily sweep run
	// in; Location is it loaded.
	Timezone string `db:"timezone"`
	// Messages go out only between QuietEnd and QuietStart ("HH:MM").
	QuietStart string `db:"quiet_start"`
	QuietEnd   string `db:"quiet_end"`
	// GraceDays after the due date before a pending charge turns overdue
	// and starts costing fine and interest.
	GraceDays    int    `db:"grace_days"`
	ChannelsJSON string `db:"channels"`
	// CompanyFineCap caps the fine on a CNPJ debtor's charge.
	CompanyFineCap latefee.Percent `db:"company_fine_cap"`
	ClosedDaysJSON string          `db:"closed_days"`
	UpdatedAt      time.Time       `db:"updated_at"`
	// PriorNoticeDays a prior notice must precede a credit-bureau report.
	PriorNoticeDays int `db:"prior_notice_days"`
	// AgreementMaxDiscount caps an agreement's discount.
	AgreementMaxDiscount latefee.Percent `db:"agreement_max_discount"`
	// AgreementGraceDays an installment may be late before its agreement
	// breaks.
	AgreementGraceDays int `db:"agreement_grace_days"`
	// State (UF) and City (IBGE code) are where the organization is: their
	// holidays close its calendar (Calendar). Empty for none.
	State string `db:"state"`
	City  string `db:"city"`
	// CompanyInterestCap caps the monthly interest of a CNPJ debtor's
	// charge (Lei 14.905/2024 art. 3º lets a creditor agree more than the
	// Lei de Usura's 1 % with a company); a CPF's is latefee's legal cap.
	CompanyInterestCap latefee.Percent `db:"company_interest_cap"`
	// PaymentImputation is the order payments pay a late charge in:
	// latefee.InterestFirst (Código Civil art. 354, the default) or
	// latefee.PrincipalFirst where the creditor agreed otherwise.
	PaymentImputation latefee.Imputation `db:"payment_imputation"`

	// Decoded when loaded.
	Channels   map[string]ChannelSetting `db:"-"`
	ClosedDays []calendar.Date           `db:"-"`
	Location   *time.Location            `db:"-"`
	// Stored is false for the defaults of an organization with no row.
	Stored bool `db:"-"`
}

// DefaultSettings are the settings of an organization that has no row.
func DefaultSettings(orgID string) Settings {
	s := Settings{OrganizationID: orgID, Timezone: DefaultTimezone, QuietStart: DefaultQuietStart, QuietEnd: DefaultQuietEnd,
		GraceDays: DefaultGraceDays, CompanyFineCap: latefee.DefaultCompanyFineCap, CompanyInterestCap: latefee.DefaultInterestCap, Channels: map[string]ChannelSetting{},
		PriorNoticeDays: DefaultPriorNoticeDays, AgreementMaxDiscount: DefaultAgreementMaxDiscount, AgreementGraceDays: DefaultAgreementGraceDays,
		PaymentImputation: latefee.InterestFirst}
	for _, ch := range Channels {
		s.Channels[ch] = ChannelSetting{Enabled: true, Provider: DefaultProvider}
	}
	s.ChannelsJSON = MustJSON(s.Channels)
	s.ClosedDaysJSON = "[]"
	s.Location = LoadZone(s.Timezone)
	return s
}

// Caps are the ceilings charges of this organization may carry: the
// configurable company fine and company interest caps, and for natural
// persons the legal ones (CDC art. 52 §1's 2 % fine, the Lei de Usura's
// 1 % a month, latefee.NaturalPersonInterestCap).
func (st Settings) Caps() latefee.Caps {
	c := latefee.DefaultCaps()
	c.CompanyFine = st.CompanyFineCap
	c.CompanyInterest = st.CompanyInterestCap
	return c
}

// Calendar is the business-day calendar of the organization: Brazil's
// bank holidays and the year's bank closing, its state's and city's
// holidays (calendar.NewIn), and its own closed days on top.
func (st Settings) Calendar() *calendar.Calendar {
	days := make([]calendar.ClosedDay, 0, len(st.ClosedDays))
	for _, d := range st.ClosedDays {
		days = append(days, calendar.ClosedDay{Date: d, Name: "closed day", Kind: calendar.KindOrganization})
	}
	return calendar.NewIn(calendar.Place{UF: st.State, City: st.City}, days...)
}

// Today is the calendar date at instant now in the organization's zone.
func (st Settings) Today(now time.Time) calendar.Date {
	loc := st.Location
	if loc == nil {
		loc = LoadZone(st.Timezone)
	}
	return calendar.DateOf(now.In(loc))
}

// ChannelEnabled reports whether the organization sends on channel.
func (st Settings) ChannelEnabled(channel string) bool {
	return st.Channels[channel].Enabled
}

// Window is when messages may go out each day (from QuietEnd to
// QuietStart), as the scheduler computes with it; an unreadable pair is
// the default 08:00–20:00.
func (st Settings) Window() schedule.Window {
	open, err1 := schedule.ParseClock(st.QuietEnd)
	closeAt, err2 := schedule.ParseClock(st.QuietStart)
	w := schedule.Window{Open: open, Close: closeAt}
	if err1 != nil || err2 != nil || w.Validate() != nil {
		return schedule.DefaultWindow
	}
	return w
}

// ScheduleOptions are the settings a step's run time depends on: the
// zone, the sending window and the organization's calendar.
func (st Settings) ScheduleOptions() schedule.Options {
	loc := st.Location
	if loc == nil {
		loc = LoadZone(st.Timezone)
	}
	return schedule.Options{Zone: loc, Window: st.Window(), Calendar: st.Calendar()}
}

// LoadZone is the zone a stored name resolves to; a name that no longer
// resolves (it was checked when saved) falls back to the default.
func LoadZone(name string) *time.Location {
	if loc, err := schedule.LoadZone(name); err == nil {
		return loc
	}
	loc, err := schedule.LoadZone(DefaultTimezone)
	if err != nil {
		return time.UTC
	}
	return loc
}

func (st *Settings) Decode() error {
	st.Channels = map[string]ChannelSetting{}
	if err := json.Unmarshal([]byte(st.ChannelsJSON), &st.Channels); err != nil {
		return fmt.Errorf("dunning: settings channels: %w", err)
	}
	// A channel the row does not name keeps its default.
	for _, ch := range Channels {
		if _, ok := st.Channels[ch]; !ok {
			st.Channels[ch] = ChannelSetting{Enabled: true, Provider: DefaultProvider}
		}
	}
	var days []string
	if err := json.Unmarshal([]byte(st.ClosedDaysJSON), &days); err != nil {
		return fmt.Errorf("dunning: settings closed_days: %w", err)
	}
	st.ClosedDays = st.ClosedDays[:0]
	for _, s := range days {
		d, err := calendar.ParseDate(s)
		if err != nil {
			return fmt.Errorf("dunning: settings closed_days: %w", err)
		}
		st.ClosedDays = append(st.ClosedDays, d)
	}
	st.Location = LoadZone(st.Timezone)
	st.Stored = true
	return nil
}

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
	DueDate     calendar.Date  `db:"-"`
	AccrualFrom calendar.Date  `db:"-"`
	Tags        []string       `db:"-"`
	CustomData  map[string]any `db:"-"`
}

// Charge origins (dunning_charges.origin).
const (
	OriginBankBillet = "bank_billet"
	OriginPix        = "pix"
	OriginInvoice    = "invoice"
	OriginExternal   = "external"
)

func (c *Charge) Decode() error {
	d, err := calendar.ParseDate(c.DueDateText)
	if err != nil {
		return fmt.Errorf("dunning: charge due_date: %w", err)
	}
	c.DueDate = d
	c.AccrualFrom = calendar.Date{}
	if c.AccrualFromText != nil && *c.AccrualFromText != "" {
		if c.AccrualFrom, err = calendar.ParseDate(*c.AccrualFromText); err != nil {
			return fmt.Errorf("dunning: charge accrual_from: %w", err)
		}
	}
	c.Tags, c.CustomData = []string{}, map[string]any{}
	if err := json.Unmarshal([]byte(c.TagsJSON), &c.Tags); err != nil {
		return fmt.Errorf("dunning: charge tags: %w", err)
	}
	if err := json.Unmarshal([]byte(c.CustomDataJSON), &c.CustomData); err != nil {
		return fmt.Errorf("dunning: charge custom_data: %w", err)
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

// ChargeBreakdown is what the charge costs on date on — the one
// function that computes a charge's updated amount: its open principal,
// plus the fine and interest crystallised by payments and still unpaid,
// plus the fine (once) and the pro rata interest accrued since
// (dunning/latefee). The rates are the charge's, lowered to the caps of
// its debtor's kind as it is now (c.DebtorKind, latefee.Caps.Limit): a
// natural person's charge never owes more than CDC art. 52 §1's 2 % fine
// and the Lei de Usura's 1 % a month, whatever the charge stored. A
// charge costs nothing extra while it is paid on time: until its due
// date, or the next business day when that falls on a weekend or a bank
// holiday (of the organization's calendar), or the end of the
// organization's grace days, whichever is latest; after that, days late
// count from the due date. A charge out of collection (paid, canceled,
// written off, in an agreement) grows no more: its updated amount is
// what it owed when it left.
func ChargeBreakdown(c Charge, st Settings, on calendar.Date) (latefee.Breakdown, error) {
	if !c.Status.Collectible() {
		return latefee.Breakdown{Open: c.OpenAmount, Fine: c.FineDue, Interest: c.InterestDue,
			Updated: c.OpenAmount + c.FineDue + c.InterestDue}, nil
	}
	return latefee.Compute(chargeTerms(c, st), on)
}

// chargeTerms are the charge's terms for dunning/latefee: its ledger and
// its rates within the caps of its debtor's kind now (chargeBreakdown).
func chargeTerms(c Charge, st Settings) latefee.Terms {
	fine, interest := st.Caps().Limit(chargeDebtorKind(c), c.Fine, c.Interest)
	return latefee.Terms{Open: c.OpenAmount, DueDate: c.DueDate, GraceUntil: st.GraceEnd(c.DueDate),
		Fine: fine, InterestMonthly: interest, FineDue: c.FineDue, InterestDue: c.InterestDue,
		FineAssessed: c.FineAssessed, AccrualFrom: c.AccrualFrom}
}

// chargeDebtorKind is the kind of the charge's debtor as loaded with it;
// a charge read without it (DebtorKind "") is held to the natural
// persons' caps, the stricter (latefee.Caps.Limit).
func chargeDebtorKind(c Charge) latefee.DebtorKind {
	return Debtor{PersonKind: c.DebtorKind}.FeeKind()
}

// GraceEnd is the last day a charge due on due is still on time: due
// plus the grace days, moved to the next business day of the
// organization's calendar when it falls on a weekend, a holiday or the
// year's bank closing. With no grace days that is FEBRABAN's rule for a
// boleto due on a closed day; with grace days, a grace that ends on a
// closed day ends on the next business day too, the reading that favours
// the consumer (CDC art. 47), since the debtor could not pay at a bank
// on its last day. A pending charge turns overdue the day after it
// (lateOn), and only then do fine and interest apply (chargeBreakdown).
func (st Settings) GraceEnd(due calendar.Date) calendar.Date {
	return st.Calendar().NextBusinessDay(due.AddDays(max(st.GraceDays, 0)))
}

// LateOn reports whether a charge due on due is late on date on: after
// its GraceEnd. The daily sweep and the charge writes use it to turn a
// pending charge overdue.
func (st Settings) LateOn(due, on calendar.Date) bool {
	return on.After(st.GraceEnd(due))
}

func MustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only types that always marshal are passed
	}
	return string(b)
}

// withTerms is c with the ledger of t (latefee.Impute's answer): its
// principal left, the fine and interest still due, and from when
// interest accrues.
func withTerms(c Charge, t latefee.Terms) Charge {
	c.OpenAmount, c.FineDue, c.InterestDue, c.FineAssessed, c.AccrualFrom = t.Open, t.FineDue, t.InterestDue, t.FineAssessed, t.AccrualFrom
	return c
}
