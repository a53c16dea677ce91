package files_test

import (
	"bytes"
	"crypto/sha256"
	"sync"
	"testing"
	"time"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
)

// fontsStatement draws every font a document uses: accents in the body and
// bold fonts, and a Pix code in the fixed-width one.
func fontsStatement(t *testing.T) files.StatementDoc {
	t.Helper()
	on, err := bankcalendar.ParseDate("2026-03-10")
	if err != nil {
		t.Fatal(err)
	}
	due, _ := bankcalendar.ParseDate("2026-02-10")
	return files.StatementDoc{
		Creditor: files.DocParty{Name: "Cobranças Paulistânia Ltda.", Document: "12.345.678/0001-95", City: "São Paulo"},
		Debtor:   files.DocParty{Name: "João da Conceição Araújo", Document: "123.456.789-09"},
		On:       on, IssuedAt: time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC),
		Lines: []files.StatementLine{{Description: "Mensalidade de fevereiro — ação", DueDate: due, DaysLate: 28,
			Open: 123456, Fine: 2469, Interest: 1152, Updated: 127077,
			Pix: "00020126360014BR.GOV.BCB.PIX0114+5511999999999520400005303986540512.345802BR5913COBRANCAS LTDA6009SAO PAULO62070503***6304ABCD"}},
	}
}

// Drawing a document leaves the Go fonts as they were: fpdf writes into
// the font bytes it is given while subsetting, so a document drawn from
// the shared slices changed them for every later document.
func TestRenderLeavesTheFontsAlone(t *testing.T) {
	t.Parallel()
	fonts := map[string][]byte{"goregular": goregular.TTF, "gobold": gobold.TTF, "gomono": gomono.TTF}
	before := map[string][32]byte{}
	for name, b := range fonts {
		before[name] = sha256.Sum256(b)
	}
	if _, err := files.RenderStatement(fontsStatement(t)); err != nil {
		t.Fatal(err)
	}
	for name, b := range fonts {
		if sha256.Sum256(b) != before[name] {
			t.Errorf("drawing a statement changed the bytes of %s", name)
		}
	}
}

// Documents drawn at once draw the bytes each draws alone (and, under the
// race detector, share nothing they write).
func TestRenderAtOnceDrawsTheSameBytes(t *testing.T) {
	t.Parallel()
	doc := fontsStatement(t)
	want, err := files.RenderStatement(doc)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	errs := make([]error, len(got))
	for i := range got {
		wg.Go(func() { got[i], errs[i] = files.RenderStatement(doc) })
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(got[i], want) {
			t.Errorf("render %d of 8 drawn at once differs from the one drawn alone", i)
		}
	}
}
