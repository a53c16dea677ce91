package ledger

import (
	"testing"
	"time"
)

// TestFeeSettingsReadAsTheRow: the settings a page of charges reads
// (feeSettings onto the defaults) give the page the rules and the today
// that the whole row gives (Settings.Decode), for the defaults and for a
// row that changes every field they read; a bad closed_days is refused
// by both.
func TestFeeSettingsReadAsTheRow(t *testing.T) {
	t.Parallel()
	row := DefaultSettings("org_a")
	row.Timezone, row.GraceDays, row.State, row.City = "America/Manaus", 4, "SP", "3550308"
	row.CompanyFineCap, row.CompanyInterestCap = 123, 45678
	row.ClosedDaysJSON, row.ChannelsJSON = `["2026-01-12","2026-02-02"]`, `{}`
	now := time.Date(2026, 3, 11, 3, 30, 0, 0, time.UTC) // still 10 March in Manaus
	for name, st := range map[string]Settings{"defaults": DefaultSettings("org_a"), "row": row} {
		if st.ClosedDaysJSON == "" {
			st.ClosedDaysJSON, st.ChannelsJSON = "[]", "{}"
		}
		whole := st
		if err := whole.Decode(); err != nil {
			t.Fatal(err)
		}
		fs := feeSettings{Timezone: st.Timezone, GraceDays: st.GraceDays, CompanyFineCap: st.CompanyFineCap,
			CompanyInterestCap: st.CompanyInterestCap, ClosedDaysJSON: st.ClosedDaysJSON, State: st.State, City: st.City}
		page, err := fs.onto(DefaultSettings("org_a"))
		if err != nil {
			t.Fatal(err)
		}
		a, b := newFeeRules(whole), newFeeRules(page)
		if a.caps != b.caps || a.calKey != b.calKey || a.grace != b.grace {
			t.Fatalf("%s: the page's rules %+v, the row's %+v", name, b, a)
		}
		if whole.Today(now) != page.Today(now) || whole.Location.String() != page.Location.String() {
			t.Fatalf("%s: today %s in %s, the row's %s in %s", name, page.Today(now), page.Location, whole.Today(now), whole.Location)
		}
	}
	if _, err := (feeSettings{Timezone: "UTC", ClosedDaysJSON: `["2026-13-01"]`}).onto(DefaultSettings("org_a")); err == nil {
		t.Fatal("a closed day that is no date was taken")
	}
}
