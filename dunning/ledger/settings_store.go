package ledger

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of an organization's settings (dunning_settings): one row per
// organization, or none while it keeps the defaults (DefaultSettings).

// Settings are the organization's settings, or the defaults when it has
// no row.
func (s *Service) Settings(ctx context.Context, orgID string) (Settings, error) {
	return LoadSettings(ctx, s.DB, orgID)
}

// LoadSettings is service.settings inside q (a transaction that must see
// its own writes).
func LoadSettings(ctx context.Context, q store.Querier, orgID string) (Settings, error) {
	var st Settings
	err := q.Get(ctx, &st, `SELECT * FROM dunning_settings WHERE organization_id = ?`, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return DefaultSettings(orgID), nil
	}
	if err != nil {
		return Settings{}, err
	}
	return st, st.Decode()
}

// saveSettings writes st as the organization's row, creating it the first
// time.
func saveSettings(ctx context.Context, q store.Querier, st Settings) error {
	days := make([]string, 0, len(st.ClosedDays))
	for _, d := range st.ClosedDays {
		days = append(days, d.String())
	}
	_, err := q.Exec(ctx, `INSERT INTO dunning_settings (organization_id, timezone, quiet_start, quiet_end, grace_days, channels, company_fine_cap, closed_days,
			prior_notice_days, agreement_max_discount, agreement_grace_days, state, city, company_interest_cap, payment_imputation, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET timezone = excluded.timezone, quiet_start = excluded.quiet_start,
			quiet_end = excluded.quiet_end, grace_days = excluded.grace_days, channels = excluded.channels,
			company_fine_cap = excluded.company_fine_cap, closed_days = excluded.closed_days, prior_notice_days = excluded.prior_notice_days,
			agreement_max_discount = excluded.agreement_max_discount, agreement_grace_days = excluded.agreement_grace_days,
			state = excluded.state, city = excluded.city, company_interest_cap = excluded.company_interest_cap,
			payment_imputation = excluded.payment_imputation, updated_at = excluded.updated_at`,
		st.OrganizationID, st.Timezone, st.QuietStart, st.QuietEnd, st.GraceDays, MustJSON(st.Channels), int64(st.CompanyFineCap), MustJSON(days),
		st.PriorNoticeDays, int64(st.AgreementMaxDiscount), st.AgreementGraceDays, st.State, st.City, int64(st.CompanyInterestCap), string(st.PaymentImputation), st.UpdatedAt)
	if err != nil {
		return err
	}
	return savePortalSettings(ctx, q, st)
}
