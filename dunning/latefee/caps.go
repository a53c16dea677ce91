package latefee

import (
	"errors"
	"fmt"
)

// DebtorKind says whom the law protects: a natural person (CPF) is a
// consumer under the Código de Defesa do Consumidor, a company (CNPJ) is
// bound by its contract within the organization's caps.
type DebtorKind string

// Debtor kinds, as the API names them.
const (
	NaturalPerson DebtorKind = "natural_person" // CPF
	Company       DebtorKind = "company"        // CNPJ
)

// ConsumerFineCap is the most a fine on a consumer debt may be: 2 % of
// the amount (Código de Defesa do Consumidor, art. 52 §1). It is law, not
// configuration.
const ConsumerFineCap = 2 * OnePercent

// Default caps an organization starts with.
const (
	// DefaultCompanyFineCap is 10 %, the ceiling the Lei de Usura
	// (Decreto 22.626/1933, art. 9) sets for a penalty clause and the
	// usual upper bound in commercial contracts.
	DefaultCompanyFineCap = 10 * OnePercent
	// DefaultInterestCap is 1 % a month, the customary ceiling for juros
	// de mora (12 % a year; Código Civil art. 406 with the Lei de Usura's
	// limit of twice the legal rate).
	DefaultInterestCap = 1 * OnePercent
)

// Caps are an organization's ceilings for what its charges may carry.
// The consumer fine cap is not among them: ConsumerFineCap always
// applies to natural persons.
type Caps struct {
	// CompanyFine caps the fine on a company's charge.
	CompanyFine Percent `json:"company_fine_percent"`
	// NaturalPersonInterest and CompanyInterest cap the monthly interest.
	NaturalPersonInterest Percent `json:"natural_person_interest_percent"`
	CompanyInterest       Percent `json:"company_interest_percent"`
}

// DefaultCaps are the caps of an organization that set none.
func DefaultCaps() Caps {
	return Caps{
		CompanyFine:           DefaultCompanyFineCap,
		NaturalPersonInterest: DefaultInterestCap,
		CompanyInterest:       DefaultInterestCap,
	}
}

// ErrCap is what every RuleError matches with errors.Is.
var ErrCap = errors.New("percentage above its cap")

// RuleError is a percentage above its cap. Field is the API field it
// belongs to ("fine_percent" or "interest_percent"), so the REST layer
// can point at it; Rule names the law or setting that sets the cap.
type RuleError struct {
	Field string
	Kind  DebtorKind
	Got   Percent
	Cap   Percent
	Rule  string
}

// Error reads "fine_percent 3% exceeds the 2% cap for natural persons
// (CDC art. 52 §1)".
func (e *RuleError) Error() string {
	who := "natural persons"
	if e.Kind == Company {
		who = "companies"
	}
	return fmt.Sprintf("%s %s exceeds the %s cap for %s (%s)", e.Field, e.Got, e.Cap, who, e.Rule)
}

// Is makes errors.Is(err, ErrCap) true for every RuleError.
func (e *RuleError) Is(target error) bool { return target == ErrCap }

// Rules named in RuleError.Rule.
const (
	RuleCDC         = "CDC art. 52 §1"
	RuleCompanyFine = "the organization's company fine cap"
	RuleInterestCap = "the organization's interest cap"
	fieldFine       = "fine_percent"
	fieldInterest   = "interest_percent"
)

// Validate checks a charge's fine and monthly interest for a debtor of
// kind against the caps, when the charge is saved. It returns a
// *RuleError naming the first rule broken, or an error for an unknown
// kind.
func (c Caps) Validate(kind DebtorKind, fine, interestMonthly Percent) error {
	var fineCap, interestCap Percent
	fineRule := RuleCompanyFine
	switch kind {
	case NaturalPerson:
		fineCap, interestCap, fineRule = ConsumerFineCap, c.NaturalPersonInterest, RuleCDC
	case Company:
		fineCap, interestCap = c.CompanyFine, c.CompanyInterest
	default:
		return fmt.Errorf("debtor kind must be %q or %q (got %q)", NaturalPerson, Company, kind)
	}
	if fine < 0 || interestMonthly < 0 {
		return ErrPercentNegative
	}
	if fine > fineCap {
		return &RuleError{Field: fieldFine, Kind: kind, Got: fine, Cap: fineCap, Rule: fineRule}
	}
	if interestMonthly > interestCap {
		return &RuleError{Field: fieldInterest, Kind: kind, Got: interestMonthly, Cap: interestCap, Rule: RuleInterestCap}
	}
	return nil
}
