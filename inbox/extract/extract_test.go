package extract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"

	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
)

// day parses an ISO date, the ReferenceDate of a test e-mail.
var day = braziltest.Day

func TestExtractEmptyInputHasArraysInOrder(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Extract(Input{}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"boletos":[],"invalid_boletos":[],"pix":[],"invalid_pix":[],"documents":[],"amounts":[],"dates":[],"attachments":[],"warnings":[]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if b, _ := json.Marshal(Result{}); string(b) != want {
		t.Errorf("zero Result marshals as %s", b)
	}
}

func TestExtractAllSourcesAndMerging(t *testing.T) {
	t.Parallel()
	latin1, err := charmap.ISO8859_1.NewEncoder().String("Cobrança de água\nValor: R$ 158,90\nVencimento: 20/03/2026\n" + braziltest.EnergyLine)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{
		Subject: "Boleto " + braziltest.ItauLine,
		From:    "cobranca@example.com",
		Text:    "Segue boleto.\nLinha: " + braziltest.ItauLine + "\nPix: " + braziltest.BCBExample,
		HTML:    "<p>Pague com Pix:</p><p>" + braziltest.BCBExample + "</p><p>Linha inválida: " + braziltest.FlipDigit(braziltest.ItauLine, 3) + "</p>",
		Attachments: []Attachment{
			{Filename: "agua.txt", ContentType: "text/plain; charset=iso-8859-1", Data: []byte(latin1)},
			{Filename: "nota.html", ContentType: "text/html", Data: []byte("<div>CPF&nbsp;529.982.247-25</div>")},
			{Filename: "logo.png", ContentType: "image/png", Data: []byte("\x89PNG....")},
		},
		ReferenceDate: day("2026-02-01"),
	}
	r := Extract(in)
	if len(r.Boletos) != 2 {
		t.Fatalf("boletos: %+v", r.Boletos)
	}
	if b := r.Boletos[0]; b.Barcode != braziltest.ItauBarcode || !slices.Equal(b.Sources, []string{"subject", "text"}) {
		t.Errorf("Itaú boleto: %+v", b)
	}
	if b := r.Boletos[1]; b.Barcode != braziltest.EnergyBarcode || !slices.Equal(b.Sources, []string{"attachment:agua.txt"}) {
		t.Errorf("energy boleto: %+v", b)
	}
	if len(r.InvalidBoletos) != 1 || r.InvalidBoletos[0].Sources[0] != "html" {
		t.Errorf("invalid boletos: %+v", r.InvalidBoletos)
	}
	if len(r.Pix) != 1 || !slices.Equal(r.Pix[0].Sources, []string{"text", "html"}) {
		t.Errorf("pix: %+v", r.Pix)
	}
	if len(r.Documents) != 1 || r.Documents[0].Number != "52998224725" || r.Documents[0].Sources[0] != "attachment:nota.html" {
		t.Errorf("documents: %+v", r.Documents)
	}
	if len(r.Dates) != 1 || r.Dates[0].Date != "2026-03-20" || r.Dates[0].Label != LabelDueDate {
		t.Errorf("dates: %+v", r.Dates)
	}
	if len(r.Amounts) != 1 || r.Amounts[0].Value != "158.90" {
		t.Errorf("amounts: %+v", r.Amounts)
	}
	var statuses []string
	for _, a := range r.Attachments {
		statuses = append(statuses, a.Filename+"="+a.Status)
	}
	if !slices.Equal(statuses, []string{"agua.txt=read", "nota.html=read", "logo.png=skipped"}) {
		t.Errorf("attachments: %v", statuses)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings: %v", r.Warnings)
	}
	_, texts := Analyze(in)
	var names []string
	for _, st := range texts {
		names = append(names, st.Source)
	}
	if !slices.Equal(names, []string{"subject", "text", "html", "attachment:agua.txt", "attachment:nota.html"}) {
		t.Errorf("sources read: %v", names)
	}
	if !strings.Contains(texts[3].Text, "Cobrança de água") {
		t.Errorf("latin-1 attachment decoded as %q", texts[3].Text)
	}
}

// A boleto's digit groups are never read as documents: here the first
// block of an arrecadação line, printed with spaces, is itself a valid
// CPF.
func TestBoletoDigitsAreNotDocuments(t *testing.T) {
	t.Parallel()
	var line string
	// The value's first 7 digits sit in block 1: step by 10 000 cents.
	for cents := int64(10_000); cents < 100_000_000_000 && line == ""; cents += 10_000 {
		bc := braziltest.CollectionBarcode(t, '4', '6', cents, "00010000000000000000000000000")
		if l := braziltest.CollectionLine(bc); brazil.ValidCPF(l[:11]) {
			line = l
		}
	}
	if line == "" {
		t.Fatal("no fixture")
	}
	spaced := fmt.Sprintf("%s %s %s %s %s %s %s %s", line[0:11], line[11:12], line[12:23], line[23:24], line[24:35], line[35:36], line[36:47], line[47:48])
	if len(findDocuments(spaced)) == 0 {
		t.Fatal("fixture does not exercise masking: the block is not seen as a CPF")
	}
	r := Extract(Input{Text: "Conta: " + spaced, ReferenceDate: day("2026-01-01")})
	if len(r.Boletos) != 1 || len(r.Documents) != 0 {
		t.Errorf("boletos %+v documents %+v", r.Boletos, r.Documents)
	}
}

func TestOversizedTextIsCutWithAWarning(t *testing.T) {
	// Not parallel: it lowers the package's maxSourceBytes for every test.
	defer func(old int) { maxSourceBytes = old }(maxSourceBytes)
	maxSourceBytes = 4096
	r := Extract(Input{Text: strings.Repeat("x", maxSourceBytes+10) + braziltest.ItauLine})
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "text") || len(r.Boletos) != 0 {
		t.Errorf("warnings %v boletos %d", r.Warnings, len(r.Boletos))
	}
}
