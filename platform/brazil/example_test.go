package brazil_test

import (
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/brazil"
)

// DecodeBoleto reads a line as printed (or typed, or a barcode as a
// scanner reads it) and returns both forms with the bank, the amount and
// the due date. The reference day, when the boleto was received, decides
// which cycle of the due-date factor it is in.
func ExampleDecodeBoleto() {
	received := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	b, err := brazil.DecodeBoleto("34191.09123 34567.880124 34567.890008 5 13810000123456", received)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Kind, b.FoundAs, b.BankCode, b.BankName)
	fmt.Println(b.Amount, b.AmountCents, b.DueDate)
	fmt.Println(b.Barcode)

	// One changed digit: the error names every check digit that fails.
	_, err = brazil.DecodeBoleto("34191.09123 34567.880124 34567.890008 5 13810000123457", received)
	fmt.Println(err)
	// Output:
	// bank digitable_line 341 Itaú Unibanco
	// 1234.56 123456 2026-03-10
	// 34195138100001234561091234567880123456789000
	// general check digit is 5, expected 2
}

// ValidCPF and ValidCNPJ accept a number formatted or not; a changed
// digit or a placeholder of one repeated digit is refused.
func ExampleValidCPF() {
	fmt.Println(brazil.ValidCPF("123.456.789-09"), brazil.ValidCPF("12345678909"))
	fmt.Println(brazil.ValidCPF("123.456.789-08"), brazil.ValidCPF("111.111.111-11"))
	fmt.Println(brazil.ValidCNPJ("12.345.678/0001-95"), brazil.ValidCNPJ("12.ABC.345/01DE-35"))
	// Output:
	// true true
	// false false
	// true true
}

// A debtor's document as typed, in whatever form, is checked, classified
// and shown the usual way; an invalid one is shown as typed.
func ExampleFormatDocument() {
	for _, typed := range []string{"12345678909", "12.345.678/0001-95", "12abc34501de35", "123.456.789-00"} {
		kind, ok := brazil.DocumentKind(typed)
		fmt.Printf("%-18s %-4s %-5v %s\n", brazil.FormatDocument(typed), kind, ok, brazil.NormalizeDocument(typed))
	}
	// Output:
	// 123.456.789-09     cpf  true  12345678909
	// 12.345.678/0001-95 cnpj true  12345678000195
	// 12.ABC.345/01DE-35 cnpj true  12ABC34501DE35
	// 123.456.789-00          false 12345678900
}

// DecodePix checks a "copia e cola" code (structure, CRC, mandatory
// fields) and returns who receives the payment. This one is the BR Code
// manual's example: a random key (evp), the payer chooses the amount.
func ExampleDecodePix() {
	p, err := brazil.DecodePix("00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.KeyType, p.Key)
	fmt.Println(p.MerchantName, p.MerchantCity, p.Amount == "", p.TxID)
	// Output:
	// evp 123e4567-e12b-12d1-a456-426655440000
	// Fulano de Tal BRASILIA true ***
}

// The due-date factor restarted at 1000 on 2025-02-22: the same factor is
// read in the cycle around the day the boleto was seen.
func ExampleDueDateFromFactor() {
	for _, seen := range []string{"2001-06-01", "2026-02-01"} {
		ref, _ := time.Parse(time.DateOnly, seen)
		due, _ := brazil.DueDateFromFactor(1381, ref)
		fmt.Println(seen, due.Format(time.DateOnly))
	}
	f, _ := brazil.FactorForDate(time.Date(2025, 2, 22, 0, 0, 0, 0, time.UTC))
	fmt.Println(f)
	// Output:
	// 2001-06-01 2001-07-19
	// 2026-02-01 2026-03-10
	// 1000
}
