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

// TestChargeListJSONIsChargeJSON: a page written through chargeListJSON
// is byte for byte ChargeJSON's, whatever the amounts, dates, times (in
// any zone, with or without fractions, set or null), strings (HTML,
// control bytes, invalid UTF-8, U+2028), tags and custom data; a time
// ChargeJSON cannot encode sends the page back to ChargeJSON, which
// refuses it as before.
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
	views := []ChargeJSON{
		{ID: "ch_1", DebtorID: "db_1", Amount: 150, OpenAmount: 150, UpdatedAmount: 150, AmountsOn: bankcalendar.NewDate(2026, 3, 10),
			DueDate: bankcalendar.NewDate(2026, 1, 10), Description: "Mensalidade 1", FinePercent: 2 * latefee.OnePercent,
			InterestPercent: latefee.OnePercent, Origin: OriginBankBillet, Tags: []string{}, CustomData: map[string]any{},
			Status: "pending", CreatedAt: base, UpdatedAt: base},
		{ID: "ch_2", ExternalID: str("ext <&> \u2028 \x01 \xff"), DebtorID: "db_2", Amount: money.Max, OpenAmount: 1,
			PaidAmount: money.Max - 1, FineAmount: 3, InterestAmount: 1234567, UpdatedAmount: 98765432101, DaysLate: 400,
			AmountsOn: bankcalendar.NewDate(2026, 3, 11), DueDate: bankcalendar.NewDate(1, 12, 31),
			Description: "ação \"quoted\" \\ \t\n <script>", FinePercent: 1, InterestPercent: 333, Origin: "pix",
			OriginRef: str("ref"), Barcode: str("23793381286000000000000000000000000000000000000"), PaymentLink: str("https://pay.example/x?a=1&b=2"),
			Tags: []string{"a", "b<c"}, CustomData: map[string]any{"z": 1.5, "a": map[string]any{"n": nil, "l": []any{1e21, "x"}}},
			Status: "overdue", Archived: true, ArchivedAt: at(base.In(saoPaulo)), OverdueAt: at(base.Add(time.Second)),
			PaidAt: at(time.Date(2026, 3, 10, 0, 0, 0, 0, odd)), CanceledAt: at(time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)),
			LastNotifiedAt: at(time.Date(0, 1, 1, 0, 0, 0, 1000, time.UTC)),
			CreatedAt:      base.In(saoPaulo), UpdatedAt: time.Date(2026, 3, 10, 12, 0, 0, 0, time.FixedZone("", 14*3600))},
		{ID: "ch_3", DebtorID: "db_1", Tags: nil, CustomData: nil, CreatedAt: time.Time{}, UpdatedAt: base,
			DueDate: bankcalendar.NewDate(9999, 9, 9), AmountsOn: bankcalendar.NewDate(2026, 3, 11)},
	}
	list, ok := chargeListViews(views)
	if !ok {
		t.Fatal("chargeListViews refused times ChargeJSON writes")
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

	// Times ChargeJSON refuses: the page falls back to ChargeJSON.
	for _, bad := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)), time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -25*3600))} {
		v := views[0]
		v.PaidAt = at(bad)
		if _, _, err := encodeBoth(t, []ChargeJSON{v}); err == nil {
			t.Fatalf("ChargeJSON encoded %v: the test's premise is wrong", bad)
		}
		if _, ok := chargeListViews([]ChargeJSON{v}); ok {
			t.Fatalf("chargeListViews took %v, which ChargeJSON refuses", bad)
		}
	}
}
