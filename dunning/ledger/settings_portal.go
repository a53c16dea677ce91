package ledger

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The creditor's settings of the debtor page (docs/dunning.md "The debtor
// page"): how long a portal link opens it, and the rules of the
// agreements a debtor accepts there alone. They are columns of
// dunning_settings, read with the rest (Settings embeds PortalSettings)
// and changed by the same PATCH /v1/settings.

// PortalSettingsJSON are the portal settings as the API shows them.
type PortalSettingsJSON struct {
	PortalLinkDays        int             `json:"portal_link_days"`
	PortalAgreements      bool            `json:"portal_agreements_enabled"`
	PortalMaxInstallments int             `json:"portal_max_installments"`
	PortalMaxDiscount     latefee.Percent `json:"portal_max_discount_percent"`
	PortalFirstDueDays    int             `json:"portal_first_due_days"`
}

func showPortalSettings(p PortalSettings) PortalSettingsJSON {
	return PortalSettingsJSON{PortalLinkDays: p.LinkDays, PortalAgreements: p.AgreementsEnabled(), PortalMaxInstallments: p.MaxInstallments,
		PortalMaxDiscount: p.MaxDiscount, PortalFirstDueDays: p.FirstDueDays}
}

// PortalSettingsPatch changes the portal settings a PATCH names.
type PortalSettingsPatch struct {
	PortalLinkDays        *int     `json:"portal_link_days,omitempty" minimum:"1" maximum:"365" jsonschema:"Days a debtor's portal link ({{debtor.portal_url}}) opens the debtor page after it was made (default 30)."`
	PortalAgreements      *bool    `json:"portal_agreements_enabled,omitempty" jsonschema:"Whether the debtor page offers agreements the debtor accepts alone, under the rules below (default false)."`
	PortalMaxInstallments *int     `json:"portal_max_installments,omitempty" minimum:"1" maximum:"60" jsonschema:"The most monthly installments the debtor page offers (default 6)."`
	PortalMaxDiscount     *float64 `json:"portal_max_discount_percent,omitempty" minimum:"0" maximum:"100" jsonschema:"The discount the debtor page gives on the charges' fine and interest, in percent of them (default 0; never on the open amount, and never more than agreement_max_discount_percent of the whole)."`
	PortalFirstDueDays    *int     `json:"portal_first_due_days,omitempty" minimum:"1" maximum:"28" jsonschema:"Days from the debtor's acceptance to the first installment's due date (default 7), moved to the next business day."`
}

// applyPortalSettings checks and applies the portal fields of a PATCH.
func applyPortalSettings(p *PortalSettings, in *PortalSettingsPatch) error {
	if in.PortalLinkDays != nil {
		if v := *in.PortalLinkDays; v < 1 || v > MaxPortalLinkDays {
			return Invalid("portal_link_days", fmt.Sprintf("must be from 1 to %d", MaxPortalLinkDays))
		}
		p.LinkDays = *in.PortalLinkDays
	}
	if in.PortalAgreements != nil {
		p.Agreements = portalAgreementsOff
		if *in.PortalAgreements {
			p.Agreements = 1
		}
	}
	if in.PortalMaxInstallments != nil {
		if v := *in.PortalMaxInstallments; v < 1 || v > 60 {
			return Invalid("portal_max_installments", "must be from 1 to 60")
		}
		p.MaxInstallments = *in.PortalMaxInstallments
	}
	if in.PortalFirstDueDays != nil {
		if v := *in.PortalFirstDueDays; v < 1 || v > MaxPortalFirstDueDays {
			return Invalid("portal_first_due_days", fmt.Sprintf("must be from 1 to %d", MaxPortalFirstDueDays))
		}
		p.FirstDueDays = *in.PortalFirstDueDays
	}
	return applyPercent(&p.MaxDiscount, "portal_max_discount_percent", in.PortalMaxDiscount)
}

// savePortalSettings writes st's portal columns on its row, which
// saveSettings just wrote.
func savePortalSettings(ctx context.Context, q store.Querier, st Settings) error {
	p := st.PortalSettings
	_, err := q.Exec(ctx, `UPDATE dunning_settings SET portal_link_days = ?, portal_agreements = ?, portal_max_installments = ?, portal_max_discount = ?,
		portal_first_due_days = ? WHERE organization_id = ?`, p.LinkDays, p.Agreements, p.MaxInstallments, int64(p.MaxDiscount), p.FirstDueDays, st.OrganizationID)
	return err
}
