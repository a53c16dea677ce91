package ledger

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
)

// encodeBoth is v as encoding/json writes it for the API (rest's encoder:
// HTML left as it is) and with json.Marshal's defaults (HTML escaped).
func encodeBoth(t *testing.T, v any) (string, string, error) {
	t.Helper()
	var api bytes.Buffer
	enc := json.NewEncoder(&api)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	plain, err2 := json.Marshal(v)
	if (err == nil) != (err2 == nil) {
		t.Fatalf("the two encoders disagree on refusing: %v, %v", err, err2)
	}
	return api.String(), string(plain), err
}

// listOf is rows with their breakdowns bs on the day on as the page
// writes them; false when set refused a row.
func listOf(rows []Charge, bs []latefee.Breakdown, on bankcalendar.Date) ([]*chargeListJSON, bool) {
	out := make([]*chargeListJSON, len(rows))
	var buf []byte
	var ok bool
	for i := range rows {
		out[i] = &chargeListJSON{}
		if buf, ok = out[i].set(&rows[i], bs[i], dateText(on), buf); !ok {
			return nil, false
		}
	}
	return out, true
}

// TestChargeListJSONIsChargeJSON: a page written through chargeListJSON
// is byte for byte ShowCharge's, whatever the amounts, dates, times (in
// any zone, with or without fractions, set or null), strings (HTML,
// control bytes, invalid UTF-8, U+2028), tags and custom data; a time
// ChargeJSON cannot encode is refused, so the page falls back to
// ChargeJSON, which refuses it as before.
func TestChargeListJSONIsChargeJSON(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	at := func(tm time.Time) *time.Time { return &tm }
	saoPaulo, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Fatal(err)
	}
	odd := time.FixedZone("odd", -(3*3600 + 7*60 + 30))
	base := time.Date(2026, 3, 10, 12, 30, 5, 123456789, time.UTC)
	rows := []Charge{
		{ID: "ch_1", DebtorID: "db_1", Amount: 150, OpenAmount: 150, DueDate: bankcalendar.NewDate(2026, 1, 10),
			Description: "Mensalidade 1", Fine: 2 * latefee.OnePercent, Interest: latefee.OnePercent, Origin: OriginBankBillet,
			Tags: []string{}, CustomData: map[string]any{}, Status: "pending", CreatedAt: base, UpdatedAt: base},
		{ID: "ch_2", ExternalID: str("ext <&> \u2028 \x01 \xff"), DebtorID: "db_2", Amount: money.Max, OpenAmount: 1,
			DueDate: bankcalendar.NewDate(1, 12, 31), Description: "ação \"quoted\" \\ \t\n <script>", Fine: 1, Interest: 333,
			Origin: "pix", OriginRef: str("ref"), Barcode: str("23793381286000000000000000000000000000000000000"),
			PaymentLink: str("https://pay.example/x?a=1&b=2"), Tags: []string{"a", "b<c"},
			CustomData: map[string]any{"z": 1.5, "a": map[string]any{"n": nil, "l": []any{1e21, "x"}}},
			Status:     "overdue", ArchivedAt: at(base.In(saoPaulo)), OverdueAt: at(base.Add(time.Second)),
			PaidAt: at(time.Date(2026, 3, 10, 0, 0, 0, 0, odd)), CanceledAt: at(time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)),
			LastNotifiedAt: at(time.Date(0, 1, 1, 0, 0, 0, 1000, time.UTC)),
			CreatedAt:      base.In(saoPaulo), UpdatedAt: time.Date(2026, 3, 10, 12, 0, 0, 0, time.FixedZone("", 14*3600))},
		{ID: "ch_3", DebtorID: "db_1", Amount: 7, OpenAmount: 9, Tags: nil, CustomData: nil, CreatedAt: time.Time{}, UpdatedAt: base,
			DueDate: bankcalendar.NewDate(9999, 9, 9)},
	}
	bs := []latefee.Breakdown{{Open: 150, Updated: 150},
		{Open: 1, Fine: 3, Interest: 1234567, Updated: 98765432101, DaysLate: 400}, {Open: 9, Updated: 9, DaysLate: -1}}
	for _, on := range []bankcalendar.Date{bankcalendar.NewDate(2026, 3, 10), bankcalendar.NewDate(12, 1, 2)} {
		views := make([]ChargeJSON, len(rows))
		for i := range rows {
			views[i] = ShowCharge(rows[i], bs[i], on)
		}
		list, ok := listOf(rows, bs, on)
		if !ok {
			t.Fatal("set refused times ChargeJSON writes")
		}
		wantAPI, wantPlain, err := encodeBoth(t, views)
		if err != nil {
			t.Fatal(err)
		}
		gotAPI, gotPlain, err := encodeBoth(t, list)
		if err != nil {
			t.Fatal(err)
		}
		if gotAPI != wantAPI || gotPlain != wantPlain {
			t.Fatalf("the page differs:\n got %s\nwant %s\n got %s\nwant %s", gotAPI, wantAPI, gotPlain, wantPlain)
		}
	}

	// Times ChargeJSON refuses: set refuses them too.
	for _, bad := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)), time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -25*3600))} {
		c := rows[0]
		c.PaidAt = at(bad)
		if _, _, err := encodeBoth(t, []ChargeJSON{ShowCharge(c, bs[0], bankcalendar.NewDate(2026, 3, 10))}); err == nil {
			t.Fatalf("ChargeJSON encoded %v: the test's premise is wrong", bad)
		}
		if _, ok := listOf([]Charge{c}, bs[:1], bankcalendar.NewDate(2026, 3, 10)); ok {
			t.Fatalf("set took %v, which ChargeJSON refuses", bad)
		}
	}
}
