package files

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/money"
)

// The PDF pages Dunning hands out (docs/decisions.md "Dunning: documents
// and exports"): A4, in Portuguese, amounts as "R$ 1.234,56" and dates as
// "10/03/2026". They are drawn with github.com/go-pdf/fpdf in the Go
// fonts (golang.org/x/image/font/gofont, BSD licence, the Go project's
// own): a TrueType font embedded as a subset, so every accent of a name
// (ã, ç, é, ô…) prints and reads back as itself, with no font file in the
// repository. Each renderer takes a plain struct, never the database, so
// it is tested directly.

// pdfFont is the family the pages are drawn in.
const pdfFont = "go"

// pdfMono is the fixed-width font a Pix copia e cola is printed in, so
// each character is told apart (0 and O, l and 1).
const pdfMono = "gomono"

// pdfContentType is the media type of every document.
const pdfContentType = "application/pdf"

// DocParty is a creditor or a debtor as a document names it: the name
// and the CPF or CNPJ already punctuated ("" when unknown).
type DocParty struct {
	Name     string
	Document string
	// Address is one line ("Rua X, 10 - Centro - São Paulo/SP"), or "".
	Address string
	// City is where the creditor signs from ("São Paulo"), or "".
	City string
}

// StatementLine is one open charge in a debtor statement, with its
// amounts on the statement's day (chargeBreakdown).
type StatementLine struct {
	Description string
	Reference   string
	DueDate     bankcalendar.Date
	DaysLate    int
	Open        money.Cents
	Fine        money.Cents
	Interest    money.Cents
	Updated     money.Cents
	// Paid is how the charge's payments were imputed so far.
	Paid latefee.Applied
	// Pix is the charge's Pix code (copia e cola) of the statement's day
	// for Updated, "" when the creditor has no Pix key.
	Pix string
}

// StatementDoc is the debtor statement (extrato de débitos): every open
// charge of the debtor with its updated amount on On.
type StatementDoc struct {
	Creditor DocParty
	Debtor   DocParty
	On       bankcalendar.Date
	Lines    []StatementLine
	IssuedAt time.Time
}

// SettlementDoc is the settlement letter (carta de quitação e anuência)
// of one paid charge.
type SettlementDoc struct {
	Creditor    DocParty
	Debtor      DocParty
	Description string
	Reference   string
	Amount      money.Cents
	DueDate     bankcalendar.Date
	PaidOn      bankcalendar.Date
	Paid        money.Cents
	On          bankcalendar.Date
	IssuedAt    time.Time
}

// AgreementTerm is what the agreement term prints: the parties, the
// charges renegotiated, the discount, the down payment and the
// installment table. The agreements' loader (document_agreement_source.go)
// fills everything but Creditor and IssuedAt, which the document job sets.
type AgreementTerm struct {
	AgreementID string
	Creditor    DocParty
	Debtor      DocParty
	Charges     []AgreementTermCharge
	// DiscountCents is taken off the charges' total; DownPaymentCents is
	// paid on DownPaymentDue, before the installments.
	DiscountCents    money.Cents
	DownPaymentCents money.Cents
	DownPaymentDue   bankcalendar.Date
	Installments     []AgreementTermInstallment
	// GraceDays an installment may be late before the agreement breaks.
	GraceDays int
	On        bankcalendar.Date
	IssuedAt  time.Time
}

// AgreementTermCharge is one charge an agreement renegotiates, at the
// amount the agreement takes it for.
type AgreementTermCharge struct {
	Description string
	Reference   string
	DueDate     bankcalendar.Date
	AmountCents money.Cents
}

// AgreementTermInstallment is one row of the installment table.
type AgreementTermInstallment struct {
	Number      int
	DueDate     bankcalendar.Date
	AmountCents money.Cents
	// Pix is the copia e cola paying the installment's charge on the
	// term's day, "" when the creditor has no Pix key or the installment
	// is not a charge yet (a term drawn for a proposal).
	Pix string
}

// OriginalCents is what the charges add up to.
func (a AgreementTerm) OriginalCents() money.Cents {
	var sum money.Cents
	for _, c := range a.Charges {
		sum += c.AmountCents
	}
	return sum
}

// TotalCents is what the debtor agrees to pay: the charges less the
// discount.
func (a AgreementTerm) TotalCents() money.Cents { return a.OriginalCents() - a.DiscountCents }

// monthsPT are the months as a Portuguese date spells them.
var monthsPT = [...]string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"}

// longDatePT is "10 de março de 2026".
func longDatePT(d bankcalendar.Date) string {
	return fmt.Sprintf("%d de %s de %d", d.Day(), monthsPT[d.Month()-1], d.Year())
}

// pdfPage is one document being drawn: fpdf with the Go fonts, the
// creditor's letterhead on every page and "Página n de N" at the foot.
type pdfPage struct {
	*fpdf.Fpdf
	width float64 // of the text area, mm
}

const pageMargin = 18.0

func newPage(title string, creditor DocParty, issued time.Time) *pdfPage {
	f := fpdf.New("P", "mm", "A4", "")
	// Each document gets its own copy of the fonts: fpdf v0.9.0 writes
	// into the bytes it is given while it subsets a font (utf8FontFile's
	// getMetrics appends to a slice of them), so documents drawn from the
	// shared gofont slices corrupted each other's glyphs, and drew
	// different bytes for the same input, when two were drawn at once
	// (docs/decisions.md, "The documents' fonts are copied").
	f.AddUTF8FontFromBytes(pdfFont, "", bytes.Clone(goregular.TTF))
	f.AddUTF8FontFromBytes(pdfFont, "B", bytes.Clone(gobold.TTF))
	f.AddUTF8FontFromBytes(pdfMono, "", bytes.Clone(gomono.TTF))
	f.SetMargins(pageMargin, pageMargin, pageMargin)
	f.SetAutoPageBreak(true, 20)
	f.SetTitle(title, true)
	f.SetAuthor(creditor.Name, true)
	f.SetCreator(ledger.ServerTitle, true)
	f.SetLang("pt-BR")
	// The same input draws the same bytes.
	f.SetCatalogSort(true)
	f.SetCreationDate(issued.UTC())
	f.SetModificationDate(issued.UTC())
	f.AliasNbPages("{nb}")
	w, _ := f.GetPageSize()
	p := &pdfPage{Fpdf: f, width: w - 2*pageMargin}
	f.SetHeaderFunc(func() {
		f.SetFont(pdfFont, "B", 12)
		f.CellFormat(p.width, 6, creditor.Name, "", 1, "L", false, 0, "")
		f.SetFont(pdfFont, "", 9)
		line := "CNPJ não informado"
		if creditor.Document != "" {
			line = "CNPJ " + creditor.Document
		}
		if creditor.Address != "" {
			line += " · " + creditor.Address
		}
		f.CellFormat(p.width, 5, line, "B", 1, "L", false, 0, "")
		f.Ln(4)
	})
	f.SetFooterFunc(func() {
		f.SetY(-14)
		f.SetFont(pdfFont, "", 8)
		f.CellFormat(p.width/2, 5, "Emitido em "+issuedBR(issued)+" · "+ledger.ServerTitle, "T", 0, "L", false, 0, "")
		f.CellFormat(p.width/2, 5, fmt.Sprintf("Página %d de {nb}", f.PageNo()), "T", 0, "R", false, 0, "")
	})
	f.AddPage()
	f.SetFont(pdfFont, "B", 15)
	f.CellFormat(p.width, 9, title, "", 1, "L", false, 0, "")
	f.Ln(2)
	return p
}

// issuedBR is the issue instant in Brasília, "10/03/2026 às 12:00".
func issuedBR(t time.Time) string {
	loc := ledger.LoadZone(ledger.DefaultTimezone)
	t = t.In(loc)
	return bankcalendar.DateOf(t).BR() + " às " + t.Format("15:04")
}

// text is a paragraph in the body font.
func (p *pdfPage) text(s string) {
	p.SetFont(pdfFont, "", 10)
	p.MultiCell(p.width, 5.2, s, "", "J", false)
	p.Ln(2)
}

// label prints "Label: value" on one line, the label in bold.
func (p *pdfPage) label(label, value string) {
	p.SetFont(pdfFont, "B", 10)
	lw := p.GetStringWidth(label+": ") + 1
	p.CellFormat(lw, 5.5, label+":", "", 0, "L", false, 0, "")
	p.SetFont(pdfFont, "", 10)
	p.MultiCell(p.width-lw, 5.5, value, "", "L", false)
}

// heading is a bold line above a table.
func (p *pdfPage) heading(s string) {
	p.Ln(2)
	p.SetFont(pdfFont, "B", 11)
	p.CellFormat(p.width, 7, s, "", 1, "L", false, 0, "")
}

// column of a table: its share of the width and its alignment.
type column struct {
	title string
	share float64
	align string
}

// table draws a header row and rows; a row whose first cell starts with
// "\x00" is drawn in bold (a total), without the marker.
func (p *pdfPage) table(cols []column, rows [][]string) {
	var sum float64
	for _, c := range cols {
		sum += c.share
	}
	widths := make([]float64, len(cols))
	for i, c := range cols {
		widths[i] = p.width * c.share / sum
	}
	p.SetFont(pdfFont, "B", 8.5)
	p.SetFillColor(235, 238, 242)
	for i, c := range cols {
		p.CellFormat(widths[i], 6.5, c.title, "1", 0, c.align, true, 0, "")
	}
	p.Ln(-1)
	for _, r := range rows {
		style := ""
		if len(r) > 0 && strings.HasPrefix(r[0], "\x00") {
			style, r = "B", append([]string{strings.TrimPrefix(r[0], "\x00")}, r[1:]...)
		}
		p.SetFont(pdfFont, style, 8.5)
		for i, c := range cols {
			cell := ""
			if i < len(r) {
				cell = fitText(p, r[i], widths[i]-2)
			}
			p.CellFormat(widths[i], 6, cell, "1", 0, c.align, false, 0, "")
		}
		p.Ln(-1)
	}
	p.Ln(3)
}

// fitText shortens s with "…" until it fits width mm in the current font.
func fitText(p *pdfPage, s string, width float64) string {
	if p.GetStringWidth(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && p.GetStringWidth(string(r)+"…") > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// signatures are lines to sign side by side, each above the name and
// the role (Credor, Devedor) it is for; they move to a new page together.
func (p *pdfPage) signatures(parties ...[2]string) {
	const w, gap = 78.0, 14.0
	if _, h := p.GetPageSize(); p.GetY()+30 > h-20 {
		p.AddPage()
	}
	p.Ln(16)
	x, y := p.GetX(), p.GetY()
	for i, s := range parties {
		left := x + float64(i)*(w+gap)
		p.Line(left, y, left+w, y)
		p.SetXY(left, y+1)
		p.SetFont(pdfFont, "B", 9.5)
		p.CellFormat(w, 5, fitText(p, s[0], w), "", 2, "L", false, 0, "")
		p.SetFont(pdfFont, "", 9)
		p.CellFormat(w, 5, s[1], "", 0, "L", false, 0, "")
	}
	p.SetXY(x, y+12)
}

func (p *pdfPage) bytes() ([]byte, error) {
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		return nil, fmt.Errorf("dunning: draw PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// partyLine is "Name, CPF 123.456.789-09".
func partyLine(d DocParty) string {
	if d.Document == "" {
		return d.Name
	}
	return d.Name + ", " + documentLabel(d.Document) + " " + d.Document
}

// documentLabel is "CNPJ" for a punctuated CNPJ, else "CPF".
func documentLabel(formatted string) string {
	if strings.Contains(formatted, "/") {
		return "CNPJ"
	}
	return "CPF"
}

// RenderStatement draws the debtor statement.
func RenderStatement(d StatementDoc) ([]byte, error) {
	p := newPage("Extrato de débitos", d.Creditor, d.IssuedAt)
	p.label("Devedor", partyLine(d.Debtor))
	if d.Debtor.Address != "" {
		p.label("Endereço", d.Debtor.Address)
	}
	p.label("Posição em", d.On.BR())
	p.Ln(3)
	if len(d.Lines) == 0 {
		p.text(fmt.Sprintf("Não há débitos em aberto de %s com %s em %s.", d.Debtor.Name, d.Creditor.Name, d.On.BR()))
		return p.bytes()
	}
	p.text(fmt.Sprintf("Débitos em aberto em %s, com a multa e os juros de mora calculados até esta data. Os valores mudam a cada dia de atraso: para pagar em outra data, peça um novo extrato.", d.On.BR()))
	cols := []column{{"Descrição", 30, "L"}, {"Vencimento", 13, "C"}, {"Dias", 7, "R"}, {"Em aberto", 14, "R"}, {"Multa", 11, "R"}, {"Juros", 11, "R"}, {"Atualizado", 15, "R"}}
	rows := make([][]string, 0, len(d.Lines)+1)
	var open, fine, interest, updated money.Cents
	for _, l := range d.Lines {
		desc := l.Description
		if desc == "" {
			desc = l.Reference
		}
		rows = append(rows, []string{desc, l.DueDate.BR(), fmt.Sprint(l.DaysLate), l.Open.String(), l.Fine.String(), l.Interest.String(), l.Updated.String()})
		open, fine, interest, updated = open+l.Open, fine+l.Fine, interest+l.Interest, updated+l.Updated
	}
	rows = append(rows, []string{"\x00Total", "", "", open.String(), fine.String(), interest.String(), updated.String()})
	p.table(cols, rows)
	var paid latefee.Applied
	for _, l := range d.Lines {
		paid.Interest, paid.Fine, paid.Principal = paid.Interest+l.Paid.Interest, paid.Fine+l.Paid.Fine, paid.Principal+l.Paid.Principal
	}
	if paid.Total() > 0 {
		// How the payments already received were imputed (Código Civil
		// art. 354: interest first, then the fine, then the principal,
		// unless the creditor agreed otherwise).
		p.text(fmt.Sprintf("Pagamentos já recebidos destes débitos: %s, imputados a juros %s, multa %s e principal %s.",
			paid.Total(), paid.Interest, paid.Fine, paid.Principal))
	}
	p.SetFont(pdfFont, "B", 11)
	p.CellFormat(p.width, 7, fmt.Sprintf("Total atualizado em %s: %s", d.On.BR(), updated), "", 1, "R", false, 0, "")
	if err := p.pixCodes(statementPix(d)); err != nil {
		return nil, err
	}
	return p.bytes()
}

// pixQRSize is the printed side of a Pix QR code, mm: the BR Code manual
// asks for a code a phone reads at arm's length.
const pixQRSize = 38.0

// pixCodes prints, under intro, for each item with a Pix code, its QR
// and its copia e cola beside what it pays; nothing when none has a code.
func (p *pdfPage) pixCodes(intro string, items []pixItem) error {
	first := true
	for i, it := range items {
		if it.Pix == "" {
			continue
		}
		if first {
			p.heading("Pagamento por Pix")
			p.text(intro)
			first = false
		}
		png, err := brazil.PixQRPNG(it.Pix)
		if err != nil {
			return err
		}
		if _, h := p.GetPageSize(); p.GetY()+pixQRSize+6 > h-20 {
			p.AddPage()
		}
		name := fmt.Sprintf("pix-%d", i)
		p.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(png))
		x, y := p.GetX(), p.GetY()
		p.ImageOptions(name, x, y, pixQRSize, pixQRSize, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
		p.SetXY(x+pixQRSize+4, y)
		p.SetFont(pdfFont, "B", 9.5)
		p.CellFormat(p.width-pixQRSize-4, 5.5, fitText(p, it.Label, p.width-pixQRSize-4), "", 2, "L", false, 0, "")
		p.SetFont(pdfFont, "", 8)
		p.CellFormat(p.width-pixQRSize-4, 5, "Pix copia e cola:", "", 2, "L", false, 0, "")
		p.SetFont(pdfMono, "", 7.5)
		p.MultiCell(p.width-pixQRSize-4, 3.8, it.Pix, "", "L", false)
		p.SetXY(x, y+pixQRSize+4)
	}
	return p.Error()
}

// pixItem is one Pix code a document prints: its QR, its label (what it
// pays and how much) and its copia e cola.
type pixItem struct {
	Label string
	Pix   string
}

// statementPix is what the statement's Pix section prints: each open
// charge's code for its updated amount on the statement's day.
func statementPix(d StatementDoc) (string, []pixItem) {
	items := make([]pixItem, 0, len(d.Lines))
	for _, l := range d.Lines {
		desc := l.Description
		if desc == "" {
			desc = l.Reference
		}
		items = append(items, pixItem{Label: desc + " · " + l.Updated.String(), Pix: l.Pix})
	}
	return fmt.Sprintf("Cada código abaixo paga o valor atualizado de um débito em %s. Em outra data o valor muda: peça um novo extrato.", d.On.BR()), items
}

// agreementPix is what the term's Pix section prints: each installment's
// code for its amount, good until its due date.
func agreementPix(a AgreementTerm) (string, []pixItem) {
	items := make([]pixItem, 0, len(a.Installments))
	for _, i := range a.Installments {
		items = append(items, pixItem{Label: fmt.Sprintf("%dª parcela · vence em %s · %s", i.Number, i.DueDate.BR(), i.AmountCents.String()), Pix: i.Pix})
	}
	return "Cada código abaixo paga uma parcela pelo seu valor até o vencimento. Depois dele o valor muda: peça o código do dia ao credor.", items
}

// RenderSettlementLetter draws the settlement letter of a paid charge:
// it declares the debt settled and serves as the creditor's consent
// (anuência) to cancel a protest and remove a credit-bureau record.
func RenderSettlementLetter(d SettlementDoc) ([]byte, error) {
	p := newPage("Carta de quitação e anuência", d.Creditor, d.IssuedAt)
	creditor := d.Creditor.Name
	if d.Creditor.Document != "" {
		creditor += ", inscrita no CNPJ sob o nº " + d.Creditor.Document + ","
	}
	debtor := d.Debtor.Name
	if d.Debtor.Document != "" {
		debtor += ", inscrito(a) no " + documentLabel(d.Debtor.Document) + " sob o nº " + d.Debtor.Document + ","
	}
	p.text(fmt.Sprintf("%s declara, para os devidos fins, que %s quitou integralmente o débito descrito abaixo, pago em %s, nada mais havendo a reclamar a seu respeito.", creditor, debtor, d.PaidOn.BR()))
	desc := d.Description
	if desc == "" {
		desc = d.Reference
	}
	p.table([]column{{"Descrição", 34, "L"}, {"Referência", 18, "L"}, {"Vencimento", 14, "C"}, {"Valor original", 17, "R"}, {"Pago em", 14, "C"}, {"Valor pago", 17, "R"}},
		[][]string{{desc, d.Reference, d.DueDate.BR(), d.Amount.String(), d.PaidOn.BR(), d.Paid.String()}})
	p.text("Esta carta serve também como declaração de anuência: autoriza o cancelamento do protesto deste título, se houver, e a exclusão do nome do devedor dos cadastros de proteção ao crédito quanto a este débito.")
	place := longDatePT(d.On)
	if d.Creditor.City != "" {
		place = d.Creditor.City + ", " + place
	}
	p.Ln(4)
	p.text(place + ".")
	p.signatures([2]string{d.Creditor.Name, "Credor"})
	return p.bytes()
}

// RenderAgreementTerm draws the agreement term: the parties, the charges
// renegotiated, the amounts and the installment table, and the clauses a
// debtor reads before accepting.
func RenderAgreementTerm(a AgreementTerm) ([]byte, error) {
	p := newPage("Termo de acordo de renegociação de dívida", a.Creditor, a.IssuedAt)
	p.label("Credor", partyLine(a.Creditor))
	p.label("Devedor", partyLine(a.Debtor))
	if a.Debtor.Address != "" {
		p.label("Endereço", a.Debtor.Address)
	}
	if a.AgreementID != "" {
		p.label("Acordo", a.AgreementID)
	}
	p.heading("Débitos renegociados")
	rows := make([][]string, 0, len(a.Charges)+1)
	for _, c := range a.Charges {
		desc := c.Description
		if desc == "" {
			desc = c.Reference
		}
		rows = append(rows, []string{desc, c.Reference, c.DueDate.BR(), c.AmountCents.String()})
	}
	rows = append(rows, []string{"\x00Total", "", "", a.OriginalCents().String()})
	p.table([]column{{"Descrição", 40, "L"}, {"Referência", 22, "L"}, {"Vencimento original", 18, "C"}, {"Valor", 18, "R"}}, rows)
	p.heading("Condições")
	p.label("Valor dos débitos", a.OriginalCents().String())
	p.label("Desconto", a.DiscountCents.String())
	p.label("Valor do acordo", a.TotalCents().String())
	if a.DownPaymentCents > 0 {
		entry := a.DownPaymentCents.String()
		if !a.DownPaymentDue.IsZero() {
			entry += ", a pagar até " + a.DownPaymentDue.BR()
		}
		p.label("Entrada", entry)
	}
	p.label("Parcelas", fmt.Sprintf("%d", len(a.Installments)))
	p.heading("Parcelas")
	inst := make([][]string, 0, len(a.Installments)+1)
	var sum money.Cents
	for _, i := range a.Installments {
		inst = append(inst, []string{fmt.Sprintf("%dª", i.Number), i.DueDate.BR(), i.AmountCents.String()})
		sum += i.AmountCents
	}
	inst = append(inst, []string{"\x00Total", "", sum.String()})
	p.table([]column{{"Parcela", 20, "C"}, {"Vencimento", 40, "C"}, {"Valor", 40, "R"}}, inst)
	if err := p.pixCodes(agreementPix(a)); err != nil {
		return nil, err
	}
	p.heading("Cláusulas")
	p.text("1. O devedor reconhece os débitos acima e se compromete a pagá-los nas condições deste termo. O desconto vale apenas se o acordo for cumprido.")
	grace := "no vencimento"
	if a.GraceDays > 0 {
		grace = fmt.Sprintf("em até %d dias após o vencimento", a.GraceDays)
	}
	p.text(fmt.Sprintf("2. Uma parcela não paga %s quebra o acordo: o desconto é perdido e os débitos voltam a ser cobrados pelo que ainda restar, com multa e juros.", grace))
	p.text("3. Enquanto o acordo estiver em dia, o credor não promove novas cobranças nem protestos dos débitos renegociados, e pede a exclusão de registros nos cadastros de proteção ao crédito.")
	p.text("4. Pago o valor do acordo, o credor dá quitação dos débitos renegociados.")
	p.Ln(2)
	p.text(longDatePT(a.On) + ".")
	p.signatures([2]string{a.Creditor.Name, "Credor"}, [2]string{a.Debtor.Name, "Devedor"})
	return p.bytes()
}
