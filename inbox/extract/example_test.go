package extract_test

import (
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/inbox/extract"
)

// Extract reads an e-mail and reports the boletos, Pix codes, CNPJs and
// CPFs, amounts and dates it holds, with every check digit verified.
// ReferenceDate (the day the e-mail arrived) anchors the boleto's due-date
// factor.
func ExampleExtract() {
	r := extract.Extract(extract.Input{
		Subject: "Fatura de março",
		Text: "Prezado cliente,\n" +
			"Linha digitável: 34191.09123 34567.880124 34567.890008 5 13810000123456\n" +
			"Beneficiário: ACME LTDA, CNPJ 11.222.333/0001-81\n" +
			"Vencimento: 10/03/2026 — Total R$ 1.234,56\n" +
			"Pix: 00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D",
		ReferenceDate: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
	})
	b := r.Boletos[0]
	fmt.Println(b.Kind, b.BankCode, b.BankName, b.Amount, b.AmountCents, b.DueDate)
	fmt.Println(b.Barcode)
	p := r.Pix[0]
	fmt.Println(p.KeyType, p.Key, p.MerchantName, p.MerchantCity)
	fmt.Println(r.Documents[0].Kind, r.Documents[0].Formatted)
	fmt.Println(r.Dates[0].Label, r.Dates[0].Date, r.Amounts[0].Value, r.Amounts[0].Sources)
	// Output:
	// bank 341 Itaú Unibanco 1234.56 123456 2026-03-10
	// 34195138100001234561091234567880123456789000
	// evp 123e4567-e12b-12d1-a456-426655440000 Fulano de Tal BRASILIA
	// cnpj 11.222.333/0001-81
	// due_date 2026-03-10 1234.56 [text]
}
