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
	// DefaultInterestCap is 1 % a month, the company interest cap an
	// organization starts with: the natural persons' legal cap
	// (NaturalPersonInterestCap), until the organization raises it for
	// its CNPJ debtors.
	DefaultInterestCap = 1 * OnePercent
)

// NaturalPersonInterestCap is the most a natural person's (CPF) charge
// may carry as monthly interest: 1 % a month (12 % a year), the Lei de
// Usura's ceiling (Decreto 22.626/1933, art. 1º, twice the 6 % a year
// legal rate of its time), which still binds obligations of natural
// persons. It is law, not configuration.
//
// Companies differ since Lei 14.905/2024: its art. 3º takes out of the
// Lei de Usura obligations between legal entities (and the other cases
// it lists), so a creditor may agree a higher rate with a CNPJ debtor —
// Caps.CompanyInterest, an organization setting. Where no rate is
// agreed, the new Código Civil art. 406 sets the legal rate as the Selic
// minus the IPCA; Dunning charges only the rate the charge names.
const NaturalPersonInterestCap = 1 * OnePercent

// Caps are an organization's ceilings for what its charges may carry.
// The consumer fine cap is not among them: ConsumerFineCap always
// applies to natural persons.
type Caps struct {
	// CompanyFine caps the fine on a company's charge.
	CompanyFine Percent `json:"company_fine_percent"`
	// NaturalPersonInterest and CompanyInterest cap the monthly interest.
	// NaturalPersonInterest never lifts the legal cap: Validate applies
	// the lower of it and NaturalPersonInterestCap.
	NaturalPersonInterest Percent `json:"natural_person_interest_percent"`
	CompanyInterest       Percent `json:"company_interest_percent"`
}

// DefaultCaps are the caps of an organization that set none.
func DefaultCaps() Caps {
	return Caps{
		CompanyFine:           DefaultCompanyFineCap,
		NaturalPersonInterest: NaturalPersonInterestCap,
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
	RuleInterestCap = "the organization's company interest cap"
	RuleUsura       = "Lei de Usura, Decreto 22.626/1933, art. 1º"
	fieldFine       = "fine_percent"
	fieldInterest   = "interest_percent"
)

// Validate checks a charge's fine and monthly interest for a debtor of
// kind against the caps, when the charge is saved. It returns a
// *RuleError naming the first rule broken, or an error for an unknown
// kind.
func (c Caps) Validate(kind DebtorKind, fine, interestMonthly Percent) error {
	var fineCap, interestCap Percent
	fineRule, interestRule := RuleCompanyFine, RuleInterestCap
	switch kind {
	case NaturalPerson:
		fineCap, interestCap, fineRule = ConsumerFineCap, min(c.NaturalPersonInterest, NaturalPersonInterestCap), RuleCDC
		if interestCap == NaturalPersonInterestCap {
			interestRule = RuleUsura
		}
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
		return &RuleError{Field: fieldInterest, Kind: kind, Got: interestMonthly, Cap: interestCap, Rule: interestRule}
	}
	return nil
}

// Limit is what a charge of a debtor of kind may charge as fine and
// monthly interest at most, whatever the charge stored: the rates it
// names, each lowered to its cap. The caps follow the debtor as it is
// on the day of the computation, not as it was when the charge was
// saved (Validate): a company that turns out to be a natural person
// owes at most CDC art. 52 §1's 2 % fine and the Lei de Usura's 1 % a
// month at once, and a natural person found to be a company owes the
// stored rates again, within the organization's company caps. An
// unknown kind is held to the natural persons' caps, the stricter.
func (c Caps) Limit(kind DebtorKind, fine, interestMonthly Percent) (Percent, Percent) {
	if kind == Company {
		return min(fine, c.CompanyFine), min(interestMonthly, c.CompanyInterest)
	}
	return min(fine, ConsumerFineCap), min(interestMonthly, c.NaturalPersonInterest, NaturalPersonInterestCap)
}
