package latefee

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	caps := DefaultCaps()
	tests := []struct {
		kind     DebtorKind
		fine     Percent
		interest Percent
		msg      string // "" when valid
	}{
		{NaturalPerson, 2 * OnePercent, OnePercent, ""},
		{NaturalPerson, 0, 0, ""},
		{NaturalPerson, 20001, 0, "fine_percent 2,0001% exceeds the 2% cap for natural persons (CDC art. 52 §1)"},
		{NaturalPerson, 3 * OnePercent, 0, "fine_percent 3% exceeds the 2% cap for natural persons (CDC art. 52 §1)"},
		{NaturalPerson, 2 * OnePercent, 15000, "interest_percent 1,5% exceeds the 1% cap for natural persons (Lei de Usura, Decreto 22.626/1933, art. 1º)"},
		{Company, 10 * OnePercent, OnePercent, ""},
		{Company, 5 * OnePercent, 0, ""}, // above the consumer cap, fine for a company
		{Company, 11 * OnePercent, 0, "fine_percent 11% exceeds the 10% cap for companies (the organization's company fine cap)"},
		{Company, 0, 2 * OnePercent, "interest_percent 2% exceeds the 1% cap for companies (the organization's company interest cap)"},
		{"cpf", 0, 0, `debtor kind must be "natural_person" or "company" (got "cpf")`},
		{Company, -1, 0, "percentage must not be negative"},
	}
	for _, tt := range tests {
		err := caps.Validate(tt.kind, tt.fine, tt.interest)
		if tt.msg == "" {
			if err != nil {
				t.Errorf("Validate(%s, %v, %v) = %v, want nil", tt.kind, tt.fine, tt.interest, err)
			}
			continue
		}
		if err == nil || err.Error() != tt.msg {
			t.Errorf("Validate(%s, %v, %v) = %v, want %q", tt.kind, tt.fine, tt.interest, err, tt.msg)
		}
	}
}

func TestValidateConfiguredCaps(t *testing.T) {
	t.Parallel()
	// An organization may raise its company caps, never the consumer fine.
	caps := Caps{CompanyFine: 20 * OnePercent, CompanyInterest: 5 * OnePercent, NaturalPersonInterest: OnePercent}
	if err := caps.Validate(Company, 20*OnePercent, 5*OnePercent); err != nil {
		t.Errorf("raised company caps: %v", err)
	}
	err := caps.Validate(NaturalPerson, 20*OnePercent, 0)
	var re *RuleError
	if !errors.As(err, &re) || re.Rule != RuleCDC || re.Cap != ConsumerFineCap || re.Field != "fine_percent" || !errors.Is(err, ErrCap) {
		t.Errorf("consumer fine above 2%% under raised caps: %v", err)
	}
	// The zero Caps allow no interest and no company fine at all.
	if err := (Caps{}).Validate(Company, OnePercent, 0); !errors.Is(err, ErrCap) {
		t.Errorf("zero caps: %v", err)
	}
}

// TestInterestCapsLei14905: since Lei 14.905/2024 art. 3º the Lei de
// Usura no longer binds obligations between legal entities, so a company
// (CNPJ) charge may carry 3 % a month when the organization's company
// interest cap allows it; a natural person's (CPF) may not exceed 1 % a
// month (Decreto 22.626/1933 art. 1º), whatever the caps say.
func TestInterestCapsLei14905(t *testing.T) {
	t.Parallel()
	caps := DefaultCaps()
	caps.CompanyInterest = 5 * OnePercent
	caps.NaturalPersonInterest = 5 * OnePercent // cannot lift the law
	if err := caps.Validate(Company, 2*OnePercent, 3*OnePercent); err != nil {
		t.Errorf("CNPJ at 3%% a month under a 5%% company cap: %v", err)
	}
	err := caps.Validate(NaturalPerson, 2*OnePercent, 3*OnePercent)
	var re *RuleError
	if !errors.As(err, &re) || re.Cap != NaturalPersonInterestCap || re.Rule != RuleUsura || re.Field != "interest_percent" {
		t.Errorf("CPF at 3%% a month: %v, want the Lei de Usura's 1%% cap", err)
	}
	if err := caps.Validate(NaturalPerson, 0, OnePercent); err != nil {
		t.Errorf("CPF at 1%% a month: %v", err)
	}
	// The default company cap stays 1 %: raising it is the creditor's choice.
	if err := DefaultCaps().Validate(Company, 0, 3*OnePercent); !errors.Is(err, ErrCap) {
		t.Errorf("CNPJ at 3%% under the default cap: %v", err)
	}
}
