package ledger

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/schedule"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// An organization's settings as the layers read them (dunning_settings,
// loaded by settings_store.go): its defaults, its caps, its calendar and
// sending window, and when a charge of it is late.

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
	// PortalSettings are the debtor page's (settings_portal.go).
	PortalSettings

	// Decoded when loaded.
	Channels   map[string]ChannelSetting `db:"-"`
	ClosedDays []bankcalendar.Date       `db:"-"`
	Location   *time.Location            `db:"-"`
	// Stored is false for the defaults of an organization with no row.
	Stored bool `db:"-"`
}

// DefaultSettings are the settings of an organization that has no row.
func DefaultSettings(orgID string) Settings {
	s := Settings{OrganizationID: orgID, Timezone: DefaultTimezone, QuietStart: DefaultQuietStart, QuietEnd: DefaultQuietEnd,
		GraceDays: DefaultGraceDays, CompanyFineCap: latefee.DefaultCompanyFineCap, CompanyInterestCap: latefee.DefaultInterestCap, Channels: map[string]ChannelSetting{},
		PriorNoticeDays: DefaultPriorNoticeDays, AgreementMaxDiscount: DefaultAgreementMaxDiscount, AgreementGraceDays: DefaultAgreementGraceDays,
		PaymentImputation: latefee.InterestFirst, PortalSettings: DefaultPortalSettings()}
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
// holidays (bankcalendar.NewIn), and its own closed days on top.
func (st Settings) Calendar() *bankcalendar.Calendar {
	days := make([]bankcalendar.ClosedDay, 0, len(st.ClosedDays))
	for _, d := range st.ClosedDays {
		days = append(days, bankcalendar.ClosedDay{Date: d, Name: "closed day", Kind: bankcalendar.KindOrganization})
	}
	return bankcalendar.NewIn(bankcalendar.Place{UF: st.State, City: st.City}, days...)
}

// Today is the calendar date at instant now in the organization's zone.
func (st Settings) Today(now time.Time) bankcalendar.Date {
	loc := st.Location
	if loc == nil {
		loc = LoadZone(st.Timezone)
	}
	return bankcalendar.DateOf(now.In(loc))
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

// Decode fills the fields a stored row does not hold as such (channels,
// closed days, the zone) from its columns; a channel the row does not
// name keeps its default.
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
	days, err := decodeClosedDays(st.ClosedDaysJSON, st.ClosedDays[:0])
	if err != nil {
		return err
	}
	st.ClosedDays = days
	st.Location = LoadZone(st.Timezone)
	st.Stored = true
	return nil
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
func (st Settings) GraceEnd(due bankcalendar.Date) bankcalendar.Date {
	return st.Calendar().NextBusinessDay(due.AddDays(max(st.GraceDays, 0)))
}

// LateOn reports whether a charge due on due is late on date on: after
// its GraceEnd. The daily sweep and the charge writes use it to turn a
// pending charge overdue.
func (st Settings) LateOn(due, on bankcalendar.Date) bool {
	return on.After(st.GraceEnd(due))
}

// decodeClosedDays appends to days the dates of closed_days' JSON text.
func decodeClosedDays(text string, days []bankcalendar.Date) ([]bankcalendar.Date, error) {
	var texts []string
	if err := json.Unmarshal([]byte(text), &texts); err != nil {
		return nil, fmt.Errorf("dunning: settings closed_days: %w", err)
	}
	for _, s := range texts {
		d, err := bankcalendar.ParseDate(s)
		if err != nil {
			return nil, fmt.Errorf("dunning: settings closed_days: %w", err)
		}
		days = append(days, d)
	}
	return days, nil
}
