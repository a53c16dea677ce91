package dunning

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestMeAndSettings: dunning_me shows the organization, the token, the
// role, the default settings and the counts; an admin changes the
// settings, a member may not; bad values name their field; reads are
// strict; the other organization keeps its own settings.
func TestMeAndSettings(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		me := ce.ok(200, "GET", "/v1/me", nil)
		org := me["organization"].(obj)
		if org["id"] != ce.Mine.ID || org["name"] != "Mine" || me["role"] != "owner" || me["today"] != "2026-03-10" {
			t.Fatalf("me: %v", me)
		}
		// Every scope of the product's operations (the token holds them all).
		if sc := me["scopes"].([]any); len(sc) != len(Spec().Scopes()) {
			t.Fatalf("scopes: %v", sc)
		}
		st := me["settings"].(obj)
		chans := st["channels"].(obj)
		if st["timezone"] != "America/Sao_Paulo" || st["quiet_hours_start"] != "20:00" || st["quiet_hours_end"] != "08:00" ||
			num(st, "grace_days") != 0 || num(st, "company_fine_cap_percent") != 10 || num(st, "consumer_fine_cap_percent") != 2 ||
			st["updated_at"] != nil || len(chans) != 3 || chans["sms"].(obj)["provider"] != "outbox" || chans["email"].(obj)["enabled"] != true {
			t.Fatalf("default settings: %v", st)
		}
		if c := me["counts"].(obj); num(c, "debtors") != 0 || num(c, "open_charges") != 0 || num(c, "open_amount") != 0 {
			t.Fatalf("counts: %v", c)
		}
		// Viewers read; members may not change settings.
		if code, out := ce.call(ce.Viewer, "GET", "/v1/me", nil); code != 200 || out["data"].(obj)["role"] != "viewer" {
			t.Fatalf("viewer me: %d %v", code, out)
		}
		ce.fails(ce.Member, 403, "FORBIDDEN", "PATCH", "/v1/settings", obj{"grace_days": 3})

		got := ce.ok(200, "PATCH", "/v1/settings", obj{"timezone": "America/Manaus", "grace_days": 3, "quiet_hours_start": "21:00",
			"channels": obj{"email": obj{"provider": "outbox"}, "whatsapp": obj{"enabled": false}}, "company_fine_cap_percent": 5.5,
			"closed_days": []string{"2026-01-25", "2026-01-25", "2026-07-09"}})
		if got["timezone"] != "America/Manaus" || num(got, "grace_days") != 3 || got["quiet_hours_start"] != "21:00" || got["quiet_hours_end"] != "08:00" ||
			got["channels"].(obj)["email"].(obj)["provider"] != "outbox" || got["channels"].(obj)["whatsapp"].(obj)["enabled"] != false ||
			got["channels"].(obj)["whatsapp"].(obj)["provider"] != "outbox" || num(got, "company_fine_cap_percent") != 5.5 ||
			len(got["closed_days"].([]any)) != 2 || got["updated_at"] == nil {
			t.Fatalf("patched: %v", got)
		}
		// What was not named stays.
		got = ce.ok(200, "PATCH", "/v1/settings", obj{"quiet_hours_end": "09:00"})
		if got["timezone"] != "America/Manaus" || got["quiet_hours_end"] != "09:00" || got["quiet_hours_start"] != "21:00" {
			t.Fatalf("second patch: %v", got)
		}
		if got := ce.ok(200, "GET", "/v1/settings", nil); got["quiet_hours_end"] != "09:00" {
			t.Fatalf("get: %v", got)
		}

		for _, c := range []struct {
			body  obj
			field string
		}{
			{obj{"timezone": "Mars/Olympus_Mons"}, "timezone"},
			{obj{"timezone": "Local"}, "timezone"},
			{obj{"quiet_hours_start": "07:00"}, "quiet_hours_start"},
			{obj{"quiet_hours_end": "25:00"}, "quiet_hours_end"},
			{obj{"grace_days": -1}, "grace_days"},
			{obj{"channels": obj{"email": obj{"provider": "twilio"}}}, "channels.email.provider"},
			{obj{"channels": obj{"fax": obj{"enabled": true}}}, "channels.fax"},
			{obj{"company_fine_cap_percent": 101}, "company_fine_cap_percent"},
			{obj{"closed_days": []string{"2026-02-30"}}, "closed_days.0"},
			{obj{"organization_id": ce.Theirs.ID}, "organization_id"},
		} {
			fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "PATCH", "/v1/settings", c.body)
			wantFields(t, fields, c.field)
		}
		// Reads are strict.
		fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "GET", "/v1/me?organization_id=x", nil)
		wantFields(t, fields, "organization_id")

		// The other organization still has the defaults.
		code, out := ce.call(ce.Other, "GET", "/v1/settings", nil)
		if code != 200 || out["data"].(obj)["timezone"] != "America/Sao_Paulo" {
			t.Fatalf("theirs: %d %v", code, out)
		}
		// Settings reach the records: today in Manaus is still 10 March.
		st2, err := (&ledger.Service{DB: db}).Settings(t.Context(), ce.Mine.ID)
		if err != nil || !st2.Stored || st2.Timezone != "America/Manaus" || len(st2.ClosedDays) != 2 || !strings.HasPrefix(st2.Window().Open.String(), "09:00") {
			t.Fatalf("settings record: %+v %v", st2, err)
		}
	})
}
