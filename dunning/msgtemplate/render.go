package msgtemplate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// Values are what a message is filled in with, one field per Variable.
// Amounts and the due date are formatted the Brazilian way by Render
// ("R$ 1.234,56", "10/03/2026"); text fields are inserted as given.
type Values struct {
	DebtorName     string
	DebtorDocument string
	// DebtorPortalURL is "" while the debtor's page is revoked: it
	// renders empty rather than refuse the message.
	DebtorPortalURL string
	Amount          money.Cents
	UpdatedAmount   money.Cents
	DueDate         bankcalendar.Date
	Description     string
	DaysLate        int
	Barcode         string
	// LinhaDigitavel is the barcode's digitable line formatted.
	LinhaDigitavel string
	// PixCopiaECola and PixQRURL are "" without a Pix key: they render
	// empty rather than refuse the message.
	PixCopiaECola    string
	PixQRURL         string
	OrganizationName string
	PaymentLink      string
}

// Sample are the example values of Variables, for previews.
var Sample = Values{
	DebtorName:       "Maria da Silva",
	DebtorDocument:   "123.456.789-09",
	DebtorPortalURL:  "https://dunning.example/v1/portal/cDF8…",
	Amount:           100000,
	UpdatedAmount:    103500,
	DueDate:          bankcalendar.NewDate(2026, 3, 10),
	Description:      "Mensalidade de março",
	DaysLate:         45,
	Barcode:          "34191.79001 01043.510047 91020.150008 1 14060000100000",
	LinhaDigitavel:   "34191.79001 01043.510047 91020.150008 1 14060000100000",
	PixCopiaECola:    "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-42665544000052040000530398654071035.005802BR5914ESCOLA EXEMPLO6009SAO PAULO62290525KB000000000000000000000016304D760",
	PixQRURL:         "https://dunning.example/v1/pix-qr/cTF8…",
	OrganizationName: "Escola Exemplo",
	PaymentLink:      "https://pague.example/c/8f3k2",
}

// MissingError is a template that uses variables with no value for this
// charge (an empty text, no due date): sending "Pague em: " with no link
// would be worse than not sending.
type MissingError struct {
	Variables []Variable
}

// Error reads "no value for {{payment_link}}, {{charge.due_date}}".
func (e *MissingError) Error() string {
	names := make([]string, len(e.Variables))
	for i, v := range e.Variables {
		names[i] = "{{" + string(v) + "}}"
	}
	return "no value for " + strings.Join(names, ", ")
}

// value is the rendered text of v, and whether it has one.
func (vals *Values) value(v Variable) (string, bool) {
	switch v {
	case DebtorName:
		return vals.DebtorName, vals.DebtorName != ""
	case DebtorDocument:
		return vals.DebtorDocument, vals.DebtorDocument != ""
	case ChargeAmount:
		return vals.Amount.String(), true
	case ChargeUpdatedAmount:
		return vals.UpdatedAmount.String(), true
	case ChargeDueDate:
		return vals.DueDate.BR(), !vals.DueDate.IsZero()
	case ChargeDescription:
		return vals.Description, vals.Description != ""
	case ChargeDaysLate:
		return strconv.Itoa(vals.DaysLate), true
	case ChargeBarcode:
		return vals.Barcode, vals.Barcode != ""
	case ChargeLinhaDigitavel:
		return vals.LinhaDigitavel, vals.LinhaDigitavel != ""
	case DebtorPortalURL:
		return vals.DebtorPortalURL, true
	case PixCopiaECola:
		return vals.PixCopiaECola, true
	case PixQRURL:
		return vals.PixQRURL, true
	case OrganizationName:
		return vals.OrganizationName, vals.OrganizationName != ""
	case PaymentLink:
		return vals.PaymentLink, vals.PaymentLink != ""
	}
	// Unreachable for a parsed Template: Parse admits only Variables.
	panic(fmt.Sprintf("msgtemplate: variable %q has no value field", v))
}

// Render fills the template in. It fails with a *MissingError, listing
// every variable used without a value, rather than send a message with a
// hole in it.
func (t *Template) Render(vals Values) (string, error) {
	var b strings.Builder
	var missing []Variable
	for _, p := range t.parts {
		if p.v == "" {
			b.WriteString(p.text)
			continue
		}
		s, ok := vals.value(p.v)
		if !ok && !contains(missing, p.v) {
			missing = append(missing, p.v)
		}
		b.WriteString(s)
	}
	if len(missing) > 0 {
		return "", &MissingError{Variables: missing}
	}
	return b.String(), nil
}

// Render parses and renders text in one step; the error is an *Error
// for a bad template or a *MissingError for missing values.
func Render(text string, vals Values) (string, error) {
	t, err := Parse(text)
	if err != nil {
		return "", err
	}
	return t.Render(vals)
}

func contains(vs []Variable, v Variable) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
