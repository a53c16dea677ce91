package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/schedule"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Who the caller is and the organization's settings. Neither needs a
// particular scope: every token of the product may learn whom it acts for
// (the instructions say to call dunning_me first), reading the settings
// is for every role and changing them for admins (docs/decisions.md
// "Dunning: debtors, charges and payments").
var (
	MeRead         = mcp.Requirement{Permission: identity.PermRead}
	SettingsManage = mcp.Requirement{Permission: identity.PermManage}
)

// settingsJSON is an organization's settings as the API shows them.
// Messages go out only from quiet_hours_end to quiet_hours_start (by
// default 08:00 to 20:00) in the organization's timezone.
type settingsJSON struct {
	Timezone               string                    `json:"timezone"`
	QuietHoursStart        string                    `json:"quiet_hours_start"`
	QuietHoursEnd          string                    `json:"quiet_hours_end"`
	GraceDays              int                       `json:"grace_days"`
	Channels               map[string]ChannelSetting `json:"channels"`
	CompanyFineCapPercent  latefee.Percent           `json:"company_fine_cap_percent"`
	ConsumerFineCapPercent latefee.Percent           `json:"consumer_fine_cap_percent"`
	InterestCapPercent     latefee.Percent           `json:"interest_cap_percent"`
	CompanyInterestCap     latefee.Percent           `json:"company_interest_cap_percent"`
	ConsumerInterestCap    latefee.Percent           `json:"consumer_interest_cap_percent"`
	State                  string                    `json:"state"`
	City                   string                    `json:"city"`
	CityName               string                    `json:"city_name"`
	ClosedDays             []bankcalendar.Date       `json:"closed_days"`
	PriorNoticeDays        int                       `json:"prior_notice_days"`
	AgreementMaxDiscount   latefee.Percent           `json:"agreement_max_discount_percent"`
	AgreementGraceDays     int                       `json:"agreement_grace_days"`
	PaymentImputation      latefee.Imputation        `json:"payment_imputation"`
	PortalSettingsJSON
	UpdatedAt *time.Time `json:"updated_at"`
}

func showSettings(st Settings) settingsJSON {
	out := settingsJSON{Timezone: st.Timezone, QuietHoursStart: st.QuietStart, QuietHoursEnd: st.QuietEnd, GraceDays: st.GraceDays,
		Channels: st.Channels, CompanyFineCapPercent: st.CompanyFineCap, ConsumerFineCapPercent: latefee.ConsumerFineCap,
		InterestCapPercent: latefee.NaturalPersonInterestCap, CompanyInterestCap: st.CompanyInterestCap, ConsumerInterestCap: latefee.NaturalPersonInterestCap,
		State: st.State, City: st.City, ClosedDays: st.ClosedDays, PriorNoticeDays: st.PriorNoticeDays,
		AgreementMaxDiscount: st.AgreementMaxDiscount, AgreementGraceDays: st.AgreementGraceDays, PaymentImputation: st.PaymentImputation,
		PortalSettingsJSON: showPortalSettings(st.PortalSettings)}
	if r, err := bankcalendar.BrazilRegions(); err == nil && st.City != "" {
		if c, ok := r.City(st.State, st.City); ok {
			out.CityName = c.Name
		}
	}
	if out.ClosedDays == nil {
		out.ClosedDays = []bankcalendar.Date{}
	}
	if st.Stored {
		t := st.UpdatedAt
		out.UpdatedAt = &t
	}
	return out
}

type meIn struct{}

type settingsIn struct{}

// emailChannelPatch and phoneChannelPatch change one channel; the
// providers each channel may use differ.
type emailChannelPatch struct {
	Enabled  *bool   `json:"enabled,omitempty" jsonschema:"Whether debtors are contacted by e-mail."`
	Provider *string `json:"provider,omitempty" enum:"outbox,smtp" jsonschema:"outbox keeps every message in the notification log without sending it (the default); smtp sends it through the configured mail server."`
}

type phoneChannelPatch struct {
	Enabled  *bool   `json:"enabled,omitempty" jsonschema:"Whether debtors are contacted on this channel."`
	Provider *string `json:"provider,omitempty" enum:"outbox,twilio" jsonschema:"outbox keeps every message in the notification log without sending it (the default); twilio sends it through the configured messaging provider."`
}

type channelsPatch struct {
	Email    *emailChannelPatch `json:"email,omitempty" jsonschema:"The e-mail channel."`
	SMS      *phoneChannelPatch `json:"sms,omitempty" jsonschema:"The SMS channel."`
	WhatsApp *phoneChannelPatch `json:"whatsapp,omitempty" jsonschema:"The WhatsApp channel."`
}

// updateSettingsIn changes what it names and keeps the rest.
type updateSettingsIn struct {
	Timezone              *string        `json:"timezone,omitempty" minLength:"1" maxLength:"64" jsonschema:"IANA time zone plans' send times and the daily sweep run in, such as America/Sao_Paulo or America/Manaus."`
	QuietHoursStart       *string        `json:"quiet_hours_start,omitempty" pattern:"^([01][0-9]|2[0-3]):[0-5][0-9]$" jsonschema:"HH:MM from which no message goes out (default 20:00)."`
	QuietHoursEnd         *string        `json:"quiet_hours_end,omitempty" pattern:"^([01][0-9]|2[0-3]):[0-5][0-9]$" jsonschema:"HH:MM from which messages go out again (default 08:00); it must be earlier in the day than quiet_hours_start."`
	GraceDays             *int           `json:"grace_days,omitempty" minimum:"0" maximum:"90" jsonschema:"Days after the due date before a pending charge turns overdue and starts costing fine and interest (default 0)."`
	Channels              *channelsPatch `json:"channels,omitempty" jsonschema:"Channels to change: whether each is enabled and which provider sends on it."`
	CompanyFineCapPercent *float64       `json:"company_fine_cap_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"The highest fine a company's (CNPJ) charge may carry, in percent (default 10). A natural person's is 2 % by law and cannot be changed."`
	CompanyInterestCap    *float64       `json:"company_interest_cap_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"The highest monthly interest a company's (CNPJ) charge may carry, in percent (default 1): Lei 14.905/2024 frees obligations between companies from the Lei de Usura. A natural person's is 1 % a month by law and cannot be changed."`
	State                 *string        `json:"state,omitempty" maxLength:"2" jsonschema:"The organization's state, its two-letter code (SP, RJ…), whose holidays close its calendar; empty for national holidays only."`
	City                  *string        `json:"city,omitempty" maxLength:"100" jsonschema:"The organization's city, its IBGE code (3550308) or name (São Paulo), whose holidays close its calendar; the project's table has the 27 capitals (type another city's days in closed_days). Empty for none."`
	ClosedDays            *[]string      `json:"closed_days,omitempty" jsonschema:"At most 400; replaces the organization's own closed days (YYYY-MM-DD), besides Brazil's bank holidays and its state's and city's."`
	PriorNoticeDays       *int           `json:"prior_notice_days,omitempty" minimum:"0" maximum:"90" jsonschema:"Days a written prior notice (a notification of kind prior_notice) must precede a credit-bureau report (default 10, as consumer law asks)."`
	PaymentImputation     *string        `json:"payment_imputation,omitempty" enum:"interest_first,principal_first" jsonschema:"The order a payment pays a late charge in: interest_first (default, Código Civil art. 354: interest, then fine, then principal) or principal_first, for a creditor who agreed otherwise with its debtors (art. 354's 'estipulação em contrário'). Either way a payment below the updated amount never clears a charge."`
	AgreementMaxDiscount  *float64       `json:"agreement_max_discount_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"The largest discount an agreement may give, in percent of the debt's updated amount (default 30)."`
	AgreementGraceDays    *int           `json:"agreement_grace_days,omitempty" minimum:"0" maximum:"90" jsonschema:"Days an agreement's installment may be late before the agreement breaks (default 5)."`
	// The debtor page's settings (settings_portal.go).
	PortalSettingsPatch
}

// RegisterMe declares dunning_me and the settings operations.
func RegisterMe(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_me", Method: "GET", Path: "/me", Tags: []string{"me"},
		Title:    "Who am I",
		Summary:  "The organization the token acts for, the token's scopes, the caller's role, the organization's Dunning settings and its counts (debtors, open charges, open amount). Call it first.",
		Requires: MeRead, Annotations: restkit.ReadOnly(),
	}, s.me)
	rest.Handle(api, rest.Operation{
		ID: "dunning_settings_get", Method: "GET", Path: "/settings", Tags: []string{"settings"},
		Title:    "Get the settings",
		Summary:  "The organization's collection settings: timezone, quiet hours, grace days, channels and their providers, the company fine and interest caps, its state and city (whose holidays close its calendar) and its own closed days.",
		Requires: MeRead, Annotations: restkit.ReadOnly(),
	}, s.settingsGet)
	rest.Handle(api, rest.Operation{
		ID: "dunning_settings_update", Method: "PATCH", Path: "/settings", Tags: []string{"settings"},
		Title:    "Change the settings",
		Summary:  "Changes the organization's collection settings (admins only): what the request names changes, the rest stays.",
		Requires: SettingsManage, Annotations: restkit.Write(false),
	}, s.settingsUpdate)
}

// me answers dunning_me.
func (s *Service) me(ctx context.Context, _ *meIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	org, err := s.Accounts.GetOrganization(ctx, t.OrgID)
	if err != nil {
		return nil, NotFoundAs(err, "organization")
	}
	st, err := s.Settings(ctx, t.OrgID)
	if err != nil {
		return nil, err
	}
	counts, err := organizationCounts(ctx, s.DB, t.OrgID)
	if err != nil {
		return nil, err
	}
	id := t.Identity
	scopes := id.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	var user any
	if id.UserID != "" {
		user = map[string]any{"id": id.UserID, "email": id.Email}
	}
	return rest.OK(map[string]any{"data": map[string]any{
		"organization": map[string]any{"id": org.ID, "name": org.Name},
		"user":         user,
		"role":         string(id.Role),
		"scopes":       scopes,
		"client_id":    id.ClientID,
		"settings":     showSettings(st),
		"today":        st.Today(s.Clock()),
		"counts":       counts,
	}}), nil
}

// settingsGet answers dunning_settings_get.
func (s *Service) settingsGet(ctx context.Context, _ *settingsIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.Settings(ctx, t.OrgID)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": showSettings(st)}), nil
}

// settingsUpdate answers dunning_settings_update.
func (s *Service) settingsUpdate(ctx context.Context, in *updateSettingsIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var st Settings
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if st, err = LoadSettings(ctx, tx, t.OrgID); err != nil {
			return err
		}
		if err := applySettings(&st, in); err != nil {
			return err
		}
		// Only a provider the deployment configured (channels.go).
		if err := s.checkProviders(st, in.Channels != nil); err != nil {
			return err
		}
		st.UpdatedAt = s.Clock()
		return saveSettings(ctx, tx, st)
	})
	if err != nil {
		return nil, err
	}
	if st, err = s.Settings(ctx, t.OrgID); err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": showSettings(st)}), nil
}

// applySettings checks and applies a settings change to st, field by
// field in a fixed order: the first field refused is the answer.
func applySettings(st *Settings, in *updateSettingsIn) error {
	if err := applyWindow(st, in); err != nil {
		return err
	}
	if in.GraceDays != nil {
		st.GraceDays = *in.GraceDays
	}
	if in.PriorNoticeDays != nil {
		st.PriorNoticeDays = *in.PriorNoticeDays
	}
	if in.AgreementGraceDays != nil {
		st.AgreementGraceDays = *in.AgreementGraceDays
	}
	if err := applyPercent(&st.AgreementMaxDiscount, "agreement_max_discount_percent", in.AgreementMaxDiscount); err != nil {
		return err
	}
	if err := applyPortalSettings(&st.PortalSettings, &in.PortalSettingsPatch); err != nil {
		return err
	}
	if err := applyChannels(st, in.Channels); err != nil {
		return err
	}
	if err := applyPercent(&st.CompanyFineCap, "company_fine_cap_percent", in.CompanyFineCapPercent); err != nil {
		return err
	}
	if err := applyImputation(st, in.PaymentImputation); err != nil {
		return err
	}
	if err := applyPercent(&st.CompanyInterestCap, "company_interest_cap_percent", in.CompanyInterestCap); err != nil {
		return err
	}
	if in.State != nil || in.City != nil {
		if err := applyPlace(st, in.State, in.City); err != nil {
			return err
		}
	}
	return applyClosedDays(st, in.ClosedDays)
}

// applyWindow sets the timezone and the quiet hours: the zone must load,
// and messages go out from quiet_hours_end to quiet_hours_start, so the
// end must come earlier in the day (the field named is the one the
// request changed, quiet_hours_start when it changed both).
func applyWindow(st *Settings, in *updateSettingsIn) error {
	if in.Timezone != nil {
		if _, err := schedule.LoadZone(*in.Timezone); err != nil {
			return Invalid("timezone", err.Error())
		}
		st.Timezone = *in.Timezone
	}
	if in.QuietHoursStart != nil {
		st.QuietStart = *in.QuietHoursStart
	}
	if in.QuietHoursEnd != nil {
		st.QuietEnd = *in.QuietHoursEnd
	}
	if in.QuietHoursStart != nil || in.QuietHoursEnd != nil {
		open, err1 := schedule.ParseClock(st.QuietEnd)
		closeAt, err2 := schedule.ParseClock(st.QuietStart)
		w := schedule.Window{Open: open, Close: closeAt}
		if err1 != nil || err2 != nil || w.Validate() != nil {
			field := "quiet_hours_start"
			if in.QuietHoursStart == nil {
				field = "quiet_hours_end"
			}
			return Invalid(field, fmt.Sprintf("messages go out from quiet_hours_end (%s) to quiet_hours_start (%s), so quiet_hours_end must be earlier in the day", st.QuietEnd, st.QuietStart))
		}
	}
	return nil
}

// applyChannels changes what c names of each channel, whether it is
// enabled and its provider, and checks every channel's provider is one
// its kind allows (outbox or smtp for e-mail, outbox or twilio for SMS and
// WhatsApp); which of those the deployment offers is checkProviders'.
func applyChannels(st *Settings, c *channelsPatch) error {
	if c == nil {
		return nil
	}
	set := func(ch string, enabled *bool, provider *string) {
		cur := st.Channels[ch]
		if enabled != nil {
			cur.Enabled = *enabled
		}
		if provider != nil {
			cur.Provider = *provider
		}
		st.Channels[ch] = cur
	}
	if c.Email != nil {
		set(ChannelEmail, c.Email.Enabled, c.Email.Provider)
	}
	if c.SMS != nil {
		set(ChannelSMS, c.SMS.Enabled, c.SMS.Provider)
	}
	if c.WhatsApp != nil {
		set(ChannelWhatsApp, c.WhatsApp.Enabled, c.WhatsApp.Provider)
	}
	// Nested enums are not part of the generated schema's checks, so
	// the providers are checked here.
	for ch, allowed := range map[string][]string{ChannelEmail: {"outbox", "smtp"}, ChannelSMS: {"outbox", "twilio"}, ChannelWhatsApp: {"outbox", "twilio"}} {
		if p := st.Channels[ch].Provider; p != allowed[0] && p != allowed[1] {
			return Invalid("channels."+ch+".provider", fmt.Sprintf("must be %s or %s (got %q)", allowed[0], allowed[1], p))
		}
	}
	return nil
}

// applyImputation sets the order payments pay a late charge in, one of
// latefee.Imputations.
func applyImputation(st *Settings, text *string) error {
	if text == nil {
		return nil
	}
	order := latefee.Imputation(*text)
	if !slices.Contains(latefee.Imputations, order) {
		return Invalid("payment_imputation", `must be "interest_first" or "principal_first"`)
	}
	st.PaymentImputation = order
	return nil
}

// applyClosedDays replaces the organization's own closed days with
// texts, when the request has them: at most 400 dates, repeats dropped,
// in the order given.
func applyClosedDays(st *Settings, texts *[]string) error {
	if texts == nil {
		return nil
	}
	if len(*texts) > 400 {
		return Invalid("closed_days", "must have at most 400 days")
	}
	days := make([]bankcalendar.Date, 0, len(*texts))
	seen := map[bankcalendar.Date]bool{}
	for i, text := range *texts {
		d, err := DateIn(fmt.Sprintf("closed_days.%d", i), text)
		if err != nil {
			return err
		}
		if !seen[d] {
			seen[d] = true
			days = append(days, d)
		}
	}
	st.ClosedDays = days
	return nil
}

// applyPlace sets the organization's state and city, checked against the
// holiday table (platform/bankcalendar's holidays_br.json): a city needs its
// state and must be one the table has, so that no holiday is silently
// missing; it is stored as its IBGE code. Changing the state alone clears
// the city.
func applyPlace(st *Settings, state, city *string) error {
	regions, err := bankcalendar.BrazilRegions()
	if err != nil {
		return err
	}
	if state != nil {
		uf := strings.ToUpper(strings.TrimSpace(*state))
		if uf != "" {
			if _, ok := regions.State(uf); !ok {
				return Invalid("state", fmt.Sprintf("must be a Brazilian state's two-letter code, such as SP or RJ (got %q)", *state))
			}
		}
		if uf != st.State && city == nil {
			st.City = ""
		}
		st.State = uf
	}
	if city != nil {
		name := strings.TrimSpace(*city)
		if name == "" {
			st.City = ""
			return nil
		}
		if st.State == "" {
			return Invalid("city", "needs the organization's state too")
		}
		c, ok := regions.City(st.State, name)
		if !ok {
			return Invalid("city", fmt.Sprintf("%q is not a city of %s the holiday table has (it has the 27 capitals): leave it empty and type the city's holidays in closed_days", name, st.State))
		}
		st.City = c.IBGE
	}
	return nil
}
