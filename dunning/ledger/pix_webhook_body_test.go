package ledger

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/money"
)

// TestPixValorCents: the API Pix's valor reads into exactly its cents for
// any amount it can carry (ten integer digits), and anything not of its
// form — no decimals, one, three, a comma, a sign, spaces, an exponent,
// zero — is refused.
func TestPixValorCents(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(26, 26))
	for range 10000 {
		want := money.Cents(r.Int64N(9_999_999_999_99) + 1)
		got, err := pixValorCents(fmt.Sprintf("%d.%02d", want/100, want%100))
		if err != nil || got != want {
			t.Fatalf("%d: %d %v", want, got, err)
		}
	}
	for _, bad := range []string{"10", "10.5", "10.505", "10,50", "1.234,56", "-1.00", "+1.00", " 1.00", "1.00 ", "1e3", "0.00", "00000000000.01", "", "NaN", "１.００"} {
		if c, err := pixValorCents(bad); err == nil {
			t.Errorf("%q read as %d", bad, c)
		}
	}
}

// TestParsePixWebhook: the BCB manual's example body reads (the fields
// this receiver does not need ignored); a Pix repeated in one call is
// kept once; a txid "***" (a static code without one) is none.
func TestParsePixWebhook(t *testing.T) {
	t.Parallel()
	now := time.Date(2020, 9, 10, 0, 0, 0, 0, time.UTC)
	body := `{"pix":[{"endToEndId":"E12345678202009091221abcdef12345","txid":"cd1fe328c875481285a6f233ae41b662","valor":"100.00",
		"componentesValor":{"original":{"valor":"100.00"}},"chave":"7d9f0335-8dcc-4054-9bf9-0dbd61d36906","horario":"2020-09-09T20:15:00.358Z",
		"infoPagador":"0123456789"},
		{"endToEndId":"E12345678202009091221abcdef12345","valor":"100.00","horario":"2020-09-09T20:15:00.358Z"},
		{"endToEndId":"E12345678202009091221ghijkl67890","txid":"***","valor":"0.01","horario":"2020-09-09T17:15:00-03:00"}]}`
	got, err := parsePixWebhook([]byte(body), now)
	if err != nil || len(got) != 2 {
		t.Fatalf("%+v %v", got, err)
	}
	if p := got[0]; p.Amount != 10000 || p.TxID != "cd1fe328c875481285a6f233ae41b662" || p.PayerNote != "0123456789" ||
		!p.PaidAt.Equal(time.Date(2020, 9, 9, 20, 15, 0, 358_000_000, time.UTC)) {
		t.Errorf("first: %+v", p)
	}
	if p := got[1]; p.Amount != 1 || p.TxID != "" || !p.PaidAt.Equal(time.Date(2020, 9, 9, 20, 15, 0, 0, time.UTC)) {
		t.Errorf("second: %+v", p)
	}
	many := `{"pix":[` + strings.Repeat(`{"endToEndId":"E12345678202009091221abcdef12345","valor":"1.00","horario":"2020-09-09T20:15:00Z"},`, maxPixPerCall) + `{}]}`
	if _, err := parsePixWebhook([]byte(many), now); err == nil || !strings.Contains(err.Error(), "at most 1000") {
		t.Errorf("too many: %v", err)
	}
}
