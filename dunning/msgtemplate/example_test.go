package msgtemplate_test

import (
	"fmt"

	"github.com/kobana/kobana-mcp/dunning/msgtemplate"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

func ExampleValidate() {
	err := msgtemplate.Validate("Olá {{debtor.nome}}, pague em {{payment_link}")
	fmt.Println(err)
	// Output: template: line 1, column 5: unknown variable {{debtor.nome}} (did you mean {{debtor.name}}?); line 1, column 31: "{{" is not closed by "}}"
}

func ExampleRender() {
	out, err := msgtemplate.Render(
		"Olá {{debtor.name}}, sua fatura de {{charge.amount}} venceu em {{charge.due_date}}. Hoje: {{charge.updated_amount}}.",
		msgtemplate.Values{
			DebtorName:    "Maria",
			Amount:        100000,
			UpdatedAmount: 103500,
			DueDate:       bankcalendar.NewDate(2026, 3, 10),
		})
	fmt.Println(out, err)
	// Output: Olá Maria, sua fatura de R$ 1.000,00 venceu em 10/03/2026. Hoje: R$ 1.035,00. <nil>
}

// A template is parsed once when the step is saved and rendered per
// charge; Variables says what the sender must fill in.
func ExampleParse() {
	tpl, _ := msgtemplate.Parse("{{organization.name}}: pague {{charge.updated_amount}} em {{payment_link}}")
	fmt.Println(tpl.Variables())
	_, err := tpl.Render(msgtemplate.Values{OrganizationName: "ACME", UpdatedAmount: 5000})
	fmt.Println(err)
	// Output:
	// [organization.name charge.updated_amount payment_link]
	// no value for {{payment_link}}
}

// Accented Portuguese letters outside the GSM alphabet make an SMS UCS-2,
// 70 characters per segment instead of 160.
func ExampleMeasure() {
	for _, text := range []string{"Sua fatura vence hoje.", "Sua cobrança vence hoje."} {
		l := msgtemplate.Measure(msgtemplate.SMS, text)
		fmt.Println(l.Encoding, l.Units, l.Segments, l.Fits)
	}
	// Output:
	// GSM-7 22 1 true
	// UCS-2 24 1 true
}
