package msgtemplate

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"",
		"Olá, sem variáveis.",
		"Olá {{debtor.name}}, sua fatura de {{charge.amount}} vence em {{charge.due_date}}.",
		"{{ debtor.name }} {{\tpayment_link\t}}",
		"chaves soltas { e } são texto; {x} também",
		"{{debtor.name}}}",
		"{ {debtor.name} }",
	} {
		if err := Validate(text); err != nil {
			t.Errorf("Validate(%q) = %v", text, err)
		}
	}
	// Every documented variable parses.
	for _, v := range Variables {
		if err := Validate("{{" + string(v.Name) + "}}"); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}

func TestValidateProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []Problem
	}{
		{"Olá {{debtor.nome}}!", []Problem{{Kind: KindUnknownVariable, Variable: "debtor.nome", Offset: 5, Line: 1, Column: 5,
			Message: "unknown variable {{debtor.nome}} (did you mean {{debtor.name}}?)"}}},
		{"{{charge.valor}}", []Problem{{Kind: KindUnknownVariable, Variable: "charge.valor", Offset: 0, Line: 1, Column: 1,
			Message: "unknown variable {{charge.valor}}"}}},
		{"{{paymentlink}}", []Problem{{Kind: KindUnknownVariable, Variable: "paymentlink", Offset: 0, Line: 1, Column: 1,
			Message: "unknown variable {{paymentlink}} (did you mean {{payment_link}}?)"}}},
		{"Linha 1\nLinha ção {{x.y}}", []Problem{{Kind: KindUnknownVariable, Variable: "x.y", Offset: 20, Line: 2, Column: 11,
			Message: "unknown variable {{x.y}}"}}},
		{"{{Debtor.Name}}", []Problem{{Kind: KindInvalidName, Variable: "Debtor.Name", Offset: 0, Line: 1, Column: 1,
			Message: `"Debtor.Name" is not a variable name (names are like debtor.name)`}}},
		{`{{debtor.name | upper}}`, []Problem{{Kind: KindInvalidName, Variable: "debtor.name | upper", Line: 1, Column: 1,
			Message: `"debtor.name | upper" is not a variable name (names are like debtor.name)`}}},
		{`{{printf "%s" 1}}`, []Problem{{Kind: KindInvalidName, Variable: `printf "%s" 1`, Line: 1, Column: 1,
			Message: `"printf \"%s\" 1" is not a variable name (names are like debtor.name)`}}},
		{"{{debtor.\nname}}", []Problem{{Kind: KindInvalidName, Variable: "debtor.\nname", Line: 1, Column: 1,
			Message: `"debtor.\nname" is not a variable name (names are like debtor.name)`}}},
		{"a {{ }} b", []Problem{{Kind: KindEmpty, Offset: 2, Line: 1, Column: 3, Message: "empty variable {{}}"}}},
		{"Olá {{debtor.name", []Problem{{Kind: KindUnclosed, Offset: 5, Line: 1, Column: 5, Message: `"{{" is not closed by "}}"`}}},
		{"{{debtor.name {{payment_link}}", []Problem{{Kind: KindUnclosed, Offset: 0, Line: 1, Column: 1, Message: `"{{" is not closed by "}}"`}}},
		{"pague }} aqui", []Problem{{Kind: KindUnopened, Offset: 6, Line: 1, Column: 7, Message: `"}}" has no "{{" before it`}}},
		{"{{{debtor.name}}}", []Problem{{Kind: KindInvalidName, Variable: "{debtor.name", Line: 1, Column: 1,
			Message: `"{debtor.name" is not a variable name (names are like debtor.name)`}}},
		{"{{a.b}} e {{c}}\n}}", []Problem{
			{Kind: KindUnknownVariable, Variable: "a.b", Offset: 0, Line: 1, Column: 1, Message: "unknown variable {{a.b}}"},
			{Kind: KindUnknownVariable, Variable: "c", Offset: 10, Line: 1, Column: 11, Message: "unknown variable {{c}}"},
			{Kind: KindUnopened, Offset: 16, Line: 2, Column: 1, Message: `"}}" has no "{{" before it`},
		}},
	}
	for _, tt := range tests {
		err := Validate(tt.text)
		var te *Error
		if !errors.As(err, &te) {
			t.Errorf("Validate(%q) = %v, want problems", tt.text, err)
			continue
		}
		if !slices.Equal(te.Problems, tt.want) {
			t.Errorf("Validate(%q) problems:\n got %+v\nwant %+v", tt.text, te.Problems, tt.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	err := Validate("Olá {{debtor.nome}}\n{{")
	want := `template: line 1, column 5: unknown variable {{debtor.nome}} (did you mean {{debtor.name}}?); line 2, column 1: "{{" is not closed by "}}"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	err := Validate(strings.Repeat("x", MaxTemplateBytes+1))
	var te *Error
	if !errors.As(err, &te) || te.Problems[0].Kind != KindTooLong {
		t.Errorf("oversized template: %v", err)
	}
	if err := Validate(strings.Repeat("x", MaxTemplateBytes)); err != nil {
		t.Errorf("template at the limit: %v", err)
	}
	err = Validate(strings.Repeat("{{x}}", 100))
	if !errors.As(err, &te) || len(te.Problems) != maxProblems {
		t.Errorf("problems are capped at %d: %v", maxProblems, err)
	}
}

func TestTemplateVariables(t *testing.T) {
	t.Parallel()
	tpl, err := Parse("{{debtor.name}} {{payment_link}} {{debtor.name}} {{charge.amount}}")
	if err != nil {
		t.Fatal(err)
	}
	want := []Variable{DebtorName, PaymentLink, ChargeAmount}
	if got := tpl.Variables(); !slices.Equal(got, want) {
		t.Errorf("Variables() = %v, want %v", got, want)
	}
}

func TestVariableSet(t *testing.T) {
	t.Parallel()
	want := []Variable{DebtorName, DebtorDocument, DebtorPortalURL, ChargeAmount, ChargeUpdatedAmount, ChargeDueDate,
		ChargeDescription, ChargeDaysLate, ChargeBarcode, ChargeLinhaDigitavel, PixCopiaECola, PixQRURL, OrganizationName, PaymentLink}
	var got []Variable
	for _, v := range Variables {
		got = append(got, v.Name)
		if v.Description == "" || v.Example == "" {
			t.Errorf("%s is undocumented", v.Name)
		}
		// Each example is what Sample renders.
		out, err := Render("{{"+string(v.Name)+"}}", Sample)
		if err != nil || out != v.Example {
			t.Errorf("Sample renders {{%s}} as %q, %v; documented example %q", v.Name, out, err, v.Example)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Variables = %v", got)
	}
	if _, ok := Lookup("debtor.email"); ok {
		t.Error("Lookup found an undocumented variable")
	}
}
