package msgtemplate

// Variable is the name of a value a template can use, as written between
// the braces.
type Variable string

// The variables, the whole set (see Variables for descriptions).
const (
	DebtorName     Variable = "debtor.name"
	DebtorDocument Variable = "debtor.document"
	// DebtorPortalURL is the debtor's signed link to the debtor page
	// (docs/dunning.md "The debtor page"); it renders empty while the
	// debtor's links are revoked.
	DebtorPortalURL     Variable = "debtor.portal_url"
	ChargeAmount        Variable = "charge.amount"
	ChargeUpdatedAmount Variable = "charge.updated_amount"
	ChargeDueDate       Variable = "charge.due_date"
	ChargeDescription   Variable = "charge.description"
	ChargeDaysLate      Variable = "charge.days_late"
	ChargeBarcode       Variable = "charge.barcode"
	// ChargeLinhaDigitavel is the boleto's digitable line, formatted.
	ChargeLinhaDigitavel Variable = "charge.linha_digitavel"
	// PixCopiaECola and PixQRURL are the charge's Pix code of the day the
	// message goes (docs/decisions.md "Dunning: Pix BR Code"): they render
	// empty when the creditor has no Pix key.
	PixCopiaECola    Variable = "pix.copia_e_cola"
	PixQRURL         Variable = "pix.qr_url"
	OrganizationName Variable = "organization.name"
	PaymentLink      Variable = "payment_link"
)

// VariableInfo documents a variable for API clients and the MCP tools
// that help write templates.
type VariableInfo struct {
	Name        Variable `json:"name"`
	Description string   `json:"description"`
	// Example is what the variable renders as in Sample.
	Example string `json:"example"`
}

// Variables is every variable a template may use, in the order the API
// lists them. Validate refuses any other name.
var Variables = []VariableInfo{
	{DebtorName, "The debtor's name as registered.", "Maria da Silva"},
	{DebtorDocument, "The debtor's CPF or CNPJ, as the API stores it formatted.", "123.456.789-09"},
	{DebtorPortalURL, "The debtor's own link to the debtor page, where they see what they owe today, pay by Pix or boleto, download their statement and, when the creditor allows it, accept an agreement; signed, valid for the settings' portal_link_days from the day the message goes. Empty while the debtor's page is revoked.", "https://dunning.example/v1/portal/cDF8…"},
	{ChargeAmount, "The charge's original amount, R$ 1.234,56.", "R$ 1.000,00"},
	{ChargeUpdatedAmount, "The amount due today with fine and interest, R$ 1.234,56.", "R$ 1.035,00"},
	{ChargeDueDate, "The due date, DD/MM/AAAA.", "10/03/2026"},
	{ChargeDescription, "The charge's description.", "Mensalidade de março"},
	{ChargeDaysLate, "Calendar days past the due date (0 before it).", "45"},
	{ChargeBarcode, "The boleto's digitable line, to pay at a bank or app.", "34191.79001 01043.510047 91020.150008 1 14060000100000"},
	{ChargeLinhaDigitavel, "The boleto's digitable line (linha digitável), formatted in its five groups; only for a charge with a barcode.", "34191.79001 01043.510047 91020.150008 1 14060000100000"},
	{PixCopiaECola, "The Pix code (copia e cola) paying the creditor's Pix key the charge's updated amount on the day the message goes, fine and interest included; empty when the creditor has no Pix key (PUT /v1/settings/creditor).", "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-42665544000052040000530398654071035.005802BR5914ESCOLA EXEMPLO6009SAO PAULO62290525KB000000000000000000000016304D760"},
	{PixQRURL, "A link to the QR code of that Pix code (a PNG; in e-mail the QR also comes inline in the message); empty when the creditor has no Pix key.", "https://dunning.example/v1/pix-qr/cTF8…"},
	{OrganizationName, "The creditor organization's name.", "Escola Exemplo"},
	{PaymentLink, "The link where the debtor pays or sees payment options.", "https://pague.example/c/8f3k2"},
}

// Lookup describes a variable, or false when name is not one.
func Lookup(name string) (VariableInfo, bool) {
	for _, v := range Variables {
		if string(v.Name) == name {
			return v, true
		}
	}
	return VariableInfo{}, false
}
