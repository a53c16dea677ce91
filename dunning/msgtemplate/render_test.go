package msgtemplate

import (
	"errors"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

func TestRender(t *testing.T) {
	t.Parallel()
	vals := Values{
		DebtorName:       "João Souza",
		DebtorDocument:   "12.345.678/0001-95",
		Amount:           123456,
		UpdatedAmount:    127160,
		DueDate:          bankcalendar.NewDate(2026, 3, 10),
		Description:      "Parcela 3/12",
		DaysLate:         0,
		Barcode:          "23793.38128 60000.000003 00000.000400 1 84340000012345",
		OrganizationName: "ACME Ltda",
		PaymentLink:      "https://pay.example/x",
	}
	tests := []struct {
		text, want string
	}{
		{"", ""},
		{"sem variáveis", "sem variáveis"},
		{"{{debtor.name}}", "João Souza"},
		{"Olá {{ debtor.name }}, {{charge.description}} de {{charge.amount}} vence em {{charge.due_date}}.",
			"Olá João Souza, Parcela 3/12 de R$ 1.234,56 vence em 10/03/2026."},
		{"Atualizado: {{charge.updated_amount}} ({{charge.days_late}} dias)", "Atualizado: R$ 1.271,60 (0 dias)"},
		{"{{organization.name}} / {{debtor.document}}: {{charge.barcode}} {{payment_link}}",
			"ACME Ltda / 12.345.678/0001-95: 23793.38128 60000.000003 00000.000400 1 84340000012345 https://pay.example/x"},
		{"{x} {{debtor.name}}}", "{x} João Souza}"},
	}
	for _, tt := range tests {
		got, err := Render(tt.text, vals)
		if err != nil || got != tt.want {
			t.Errorf("Render(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
		}
	}
}

// Values are data: template syntax inside them is printed, not run.
func TestRenderDoesNotReparseValues(t *testing.T) {
	t.Parallel()
	vals := Sample
	vals.DebtorName = "{{payment_link}} }} {{"
	got, err := Render("Olá {{debtor.name}}", vals)
	if err != nil || got != "Olá {{payment_link}} }} {{" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestRenderMissing(t *testing.T) {
	t.Parallel()
	vals := Sample
	vals.PaymentLink = ""
	vals.DueDate = bankcalendar.Date{}
	_, err := Render("{{payment_link}} {{charge.due_date}} {{payment_link}} {{debtor.name}}", vals)
	var me *MissingError
	if !errors.As(err, &me) || err.Error() != "no value for {{payment_link}}, {{charge.due_date}}" {
		t.Errorf("err = %v", err)
	}
	// Unused empty values do not matter; zero amounts and days are values.
	vals = Values{DebtorName: "Ana"}
	got, err := Render("{{debtor.name}}: {{charge.amount}}, {{charge.days_late}}", vals)
	if err != nil || got != "Ana: R$ 0,00, 0" {
		t.Errorf("got %q, %v", got, err)
	}
	var te *Error
	if _, err := Render("{{nope}}", vals); !errors.As(err, &te) {
		t.Errorf("a bad template should give *Error, got %v", err)
	}
}

// TestPixVariablesRenderEmpty: without a Pix key the Pix variables render
// empty instead of refusing the message (docs/decisions.md "Dunning: Pix
// BR Code"), while a missing digitable line still refuses it like the
// barcode.
func TestPixVariablesRenderEmpty(t *testing.T) {
	t.Parallel()
	vals := Sample
	vals.PixCopiaECola, vals.PixQRURL, vals.LinhaDigitavel = "", "", ""
	out, err := Render("Pix: [{{pix.copia_e_cola}}] QR: [{{pix.qr_url}}]", vals)
	if err != nil || out != "Pix: [] QR: []" {
		t.Errorf("%q %v", out, err)
	}
	if _, err := Render("{{charge.linha_digitavel}}", vals); err == nil || !strings.Contains(err.Error(), "{{charge.linha_digitavel}}") {
		t.Errorf("missing digitable line: %v", err)
	}
	out, err = Render("{{pix.copia_e_cola}}", Sample)
	if err != nil || !strings.HasPrefix(out, "000201") {
		t.Errorf("%q %v", out, err)
	}
}
