package ledger

import "github.com/kobana/kobana-mcp/dunning/latefee"

// Defaults and bounds of the portal settings.
const (
	DefaultPortalLinkDays         = 30
	MaxPortalLinkDays             = 365
	DefaultPortalInstallments     = 6
	DefaultPortalFirstDueDays     = 7
	MaxPortalFirstDueDays         = 28 // the first due date stays in the next month (escalation.MonthlyDueDates)
	portalAgreementsOff       int = 0
)

// PortalSettings are the debtor page's settings.
type PortalSettings struct {
	// LinkDays a link opens the page after it was made.
	LinkDays int `db:"portal_link_days"`
	// Agreements is 1 when the page offers self-service agreements.
	Agreements int `db:"portal_agreements"`
	// MaxInstallments the page offers at most (1 to
	// escalation.MaxAgreementInstallments).
	MaxInstallments int `db:"portal_max_installments"`
	// MaxDiscount is the discount the page gives on the fine and the
	// interest of the charges (never on their open amount); the
	// agreement's discount stays under AgreementMaxDiscount too.
	MaxDiscount latefee.Percent `db:"portal_max_discount"`
	// FirstDueDays from the day of acceptance to the first installment.
	FirstDueDays int `db:"portal_first_due_days"`
}

// AgreementsEnabled reports whether the page offers agreements.
func (p PortalSettings) AgreementsEnabled() bool { return p.Agreements != portalAgreementsOff }

// DefaultPortalSettings are an organization's until it changes them:
// links of 30 days, no self-service agreements.
func DefaultPortalSettings() PortalSettings {
	return PortalSettings{LinkDays: DefaultPortalLinkDays, MaxInstallments: DefaultPortalInstallments, FirstDueDays: DefaultPortalFirstDueDays}
}
