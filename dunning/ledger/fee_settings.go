package ledger

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/store"
)

// What a page of charges reads of the organization's settings
// (docs/decisions.md, "Dunning's listing CPU, second round"): its today
// (the zone) and the amounts' rules (feeRules: the caps, the calendar, the
// grace days), seven columns of the row's twenty, without decoding the
// channels. The SQLite driver describes every column a statement names
// on every run, and LoadSettings' SELECT * named them all, row or not.

// feeSettings are the columns of dunning_settings a page of charges reads.
type feeSettings struct {
	Timezone           string          `db:"timezone"`
	GraceDays          int             `db:"grace_days"`
	CompanyFineCap     latefee.Percent `db:"company_fine_cap"`
	CompanyInterestCap latefee.Percent `db:"company_interest_cap"`
	ClosedDaysJSON     string          `db:"closed_days"`
	State              string          `db:"state"`
	City               string          `db:"city"`
}

// loadFeeSettings reads the organization's feeSettings as Settings: the
// fields newFeeRules and Today read are the row's (or the defaults without
// a row), every other field is DefaultSettings', whatever the row says.
// For a page of charges only.
func loadFeeSettings(ctx context.Context, q store.Querier, orgID string) (Settings, error) {
	st := DefaultSettings(orgID)
	var fs feeSettings
	err := q.Get(ctx, &fs, `SELECT timezone, grace_days, company_fine_cap, company_interest_cap, closed_days, state, city
		FROM dunning_settings WHERE organization_id = ?`, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return st, nil
	}
	if err != nil {
		return Settings{}, err
	}
	return fs.onto(st)
}

// onto is st with fs's fields, decoded as Settings.Decode decodes them.
func (fs feeSettings) onto(st Settings) (Settings, error) {
	st.Timezone, st.GraceDays, st.State, st.City = fs.Timezone, fs.GraceDays, fs.State, fs.City
	st.CompanyFineCap, st.CompanyInterestCap, st.ClosedDaysJSON = fs.CompanyFineCap, fs.CompanyInterestCap, fs.ClosedDaysJSON
	days, err := decodeClosedDays(fs.ClosedDaysJSON, nil)
	if err != nil {
		return Settings{}, err
	}
	st.ClosedDays, st.Location = days, LoadZone(fs.Timezone)
	return st, nil
}
