package dunning

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledongthuc/pdf"

	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// pdfText opens a PDF with github.com/ledongthuc/pdf, a reader of its
// own (it inflates the compressed content streams and maps the embedded
// font's glyphs back to text through its ToUnicode table), and answers the
// text of every page, its runs of spaces (justified lines are drawn word
// by word) as one space and each page ending in "\n". The reader maps
// fpdf's identity ToUnicode range back only up to U+00FF — every
// Portuguese letter, but not "—" or "€", which print yet read back as
// control characters — so the texts checked here keep to Latin-1
// (docs/decisions.md "Dunning: documents and exports").
func pdfText(t *testing.T, data []byte) string {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", data[:min(len(data), 20)])
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		rows, err := p.GetTextByRow()
		if err != nil {
			t.Fatal(err)
		}
		var words []string
		for _, row := range rows {
			for _, w := range row.Content {
				words = append(words, strings.Fields(w.S)...)
			}
		}
		b.WriteString(strings.Join(words, " "))
		b.WriteString("\n")
	}
	return b.String()
}

// wantText fails unless text holds every one of want.
func wantText(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the PDF's text lacks %q; it reads:\n%s", w, text)
		}
	}
}

// keepArtifact writes a document into test-artifacts/ at the repository's
// root (gitignored) for a person to open after the run.
func keepArtifact(t *testing.T, name string, data []byte) {
	t.Helper()
	dir := filepath.Join("..", "test-artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	docIssued   = time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	docCreditor = files.DocParty{Name: "Cobranças Paulistânia Ltda.", Document: "12.345.678/0001-95", Address: "Av. Paulista, 1000 - Bela Vista - São Paulo/SP", City: "São Paulo"}
	docDebtor   = files.DocParty{Name: "João da Conceição Araújo", Document: "123.456.789-09", Address: "Rua das Acácias, 45 - Vila Mariana - São Paulo/SP"}
)

func day(s string) bankcalendar.Date {
	d, err := bankcalendar.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestRenderStatementReadsBack(t *testing.T) {
	t.Parallel()
	doc := files.StatementDoc{Creditor: docCreditor, Debtor: docDebtor, On: day("2026-03-10"), IssuedAt: docIssued,
		Lines: []files.StatementLine{
			{Description: "Mensalidade de fevereiro", Reference: "MENS-02", DueDate: day("2026-02-10"), DaysLate: 28,
				Open: 123456, Fine: 2469, Interest: 1152, Updated: 127077, Paid: latefee.Applied{Interest: 300, Fine: 200, Principal: 9500}},
			{Description: "Manutenção do elevador", DueDate: day("2026-03-20"), Open: 50000, Updated: 50000},
		}}
	data, err := files.RenderStatement(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, data)
	wantText(t, text, "Extrato de débitos", "Cobranças Paulistânia Ltda.", "CNPJ 12.345.678/0001-95",
		"João da Conceição Araújo, CPF 123.456.789-09", "Posição em: 10/03/2026",
		"Mensalidade de fevereiro", "10/02/2026", "R$ 1.234,56", "R$ 24,69", "R$ 11,52", "R$ 1.270,77",
		"Manutenção do elevador", "20/03/2026", "R$ 500,00",
		"Pagamentos já recebidos destes débitos: R$ 100,00, imputados a juros R$ 3,00, multa R$ 2,00 e principal R$ 95,00.",
		"Total atualizado em 10/03/2026: R$ 1.770,77", "Página 1 de 1", "Emitido em 10/03/2026 às 12:00")
	keepArtifact(t, "dunning-statement.pdf", data)

	// The same input draws the same bytes.
	again, err := files.RenderStatement(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Error("two renders of the same statement differ")
	}

	empty, err := files.RenderStatement(files.StatementDoc{Creditor: files.DocParty{Name: "Sem CNPJ S.A."}, Debtor: docDebtor, On: day("2026-03-10"), IssuedAt: docIssued})
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, pdfText(t, empty), "Não há débitos em aberto de João da Conceição Araújo com Sem CNPJ S.A. em 10/03/2026.", "CNPJ não informado")
}

func TestRenderSettlementLetterReadsBack(t *testing.T) {
	t.Parallel()
	data, err := files.RenderSettlementLetter(files.SettlementDoc{Creditor: docCreditor, Debtor: docDebtor, Description: "Mensalidade de fevereiro",
		Reference: "MENS-02", Amount: 123456, DueDate: day("2026-02-10"), PaidOn: day("2026-03-09"), Paid: 127077, On: day("2026-03-10"), IssuedAt: docIssued})
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, data)
	wantText(t, text, "Carta de quitação e anuência", "Cobranças Paulistânia Ltda.", "12.345.678/0001-95",
		"João da Conceição Araújo", "CPF sob o nº 123.456.789-09", "quitou integralmente", "09/03/2026",
		"Mensalidade de fevereiro", "MENS-02", "10/02/2026", "R$ 1.234,56", "R$ 1.270,77", "anuência",
		"São Paulo, 10 de março de 2026.", "Credor")
	keepArtifact(t, "dunning-settlement-letter.pdf", data)
}

func TestRenderAgreementTermReadsBack(t *testing.T) {
	t.Parallel()
	term := files.AgreementTerm{AgreementID: "acordo-1", Creditor: docCreditor, Debtor: docDebtor, On: day("2026-03-10"), IssuedAt: docIssued,
		Charges: []files.AgreementTermCharge{
			{Description: "Mensalidade de janeiro", Reference: "MENS-01", DueDate: day("2026-01-10"), AmountCents: 6000},
			{Description: "Mensalidade de fevereiro", Reference: "MENS-02", DueDate: day("2026-02-10"), AmountCents: 4000},
		},
		DiscountCents: 1000, DownPaymentCents: 0, GraceDays: 5,
		Installments: []files.AgreementTermInstallment{
			{Number: 1, DueDate: day("2026-04-10"), AmountCents: 3002},
			{Number: 2, DueDate: day("2026-05-11"), AmountCents: 2999},
			{Number: 3, DueDate: day("2026-06-10"), AmountCents: 2999},
		}}
	if got := term.TotalCents(); got != money.Cents(9000) {
		t.Fatalf("total %d", got)
	}
	data, err := files.RenderAgreementTerm(term)
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, data)
	wantText(t, text, "Termo de acordo de renegociação de dívida", "Credor: Cobranças Paulistânia Ltda., CNPJ 12.345.678/0001-95",
		"Devedor: João da Conceição Araújo, CPF 123.456.789-09", "Mensalidade de janeiro", "10/01/2026", "R$ 60,00", "R$ 40,00",
		"Valor dos débitos: R$ 100,00", "Desconto: R$ 10,00", "Valor do acordo: R$ 90,00", "Parcelas: 3",
		"1ª 10/04/2026 R$ 30,02", "2ª 11/05/2026 R$ 29,99", "3ª 10/06/2026 R$ 29,99", "Total R$ 90,00",
		"em até 5 dias após o vencimento", "10 de março de 2026.", "Devedor", "Página 1 de 1")
	keepArtifact(t, "dunning-agreement-term.pdf", data)
}
