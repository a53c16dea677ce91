package dunning

import (
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The calendar and caps of the law as it stands in 2026 (issue 23),
// each on SQLite and PostgreSQL, for an R$ 1 000 charge with a 2 % fine
// and 1 % a month.

// payOnTime pays the whole R$ 1 000 of charge id on day (noon in
// Brasília) after checking it costs nothing extra then.
func (ce *dunEnv) payOnTime(t *testing.T, id string, day time.Time) {
	t.Helper()
	ce.clock.Set(day)
	got := ce.ok(200, "GET", "/v1/charges/"+id, nil)
	if num(got, "updated_amount") != 1000 || num(got, "fine_amount") != 0 || num(got, "interest_amount") != 0 || got["status"] != "pending" {
		t.Fatalf("on %s: %v", day.Format(time.DateOnly), got)
	}
	p := ce.ok(201, "POST", "/v1/charges/"+id+"/payments", obj{"amount": 1000, "method": "bank_billet"})
	if ch := p["charge"].(obj); ch["status"] != "paid" || num(ch, "open_amount") != 0 {
		t.Fatalf("paid on %s: %v", day.Format(time.DateOnly), p)
	}
}

// TestBankClosingDueDate: a charge due Thursday 2026-12-31, the year's
// last business day — no public bank hours and no interbank clearing
// (FEBRABAN's bank calendar) — paid Monday 2027-01-04, the next business
// day, owes no fine and no interest (it owed R$ 20 + R$ 1,33 before).
func TestBankClosingDueDate(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria", cpfOK)
		c := ce.charge(obj{"debtor_id": "maria", "external_id": "dez", "amount": 1000, "due_date": "2026-12-31", "fine_percent": 2, "interest_percent": 1})
		ce.payOnTime(t, c["id"].(string), time.Date(2027, 1, 4, 12, 0, 0, 0, brasilia))
	})
}

// TestGraceEndsOnBusinessDay: due Tuesday 2026-03-10 with 5 grace days,
// the grace ends Sunday the 15th; it moves to Monday 2026-03-16, the
// reading that favours the consumer (CDC art. 47), so paid then the
// charge owes nothing extra; on Tuesday the 17th it is late, counted
// from the due date.
func TestGraceEndsOnBusinessDay(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.ok(200, "PATCH", "/v1/settings", obj{"grace_days": 5})
		ce.debtor("maria", "Maria", cpfOK)
		a := ce.charge(obj{"debtor_id": "maria", "external_id": "a", "amount": 1000, "due_date": "2026-03-10", "fine_percent": 2, "interest_percent": 1})
		b := ce.charge(obj{"debtor_id": "maria", "external_id": "b", "amount": 1000, "due_date": "2026-03-10", "fine_percent": 2, "interest_percent": 1})
		ce.payOnTime(t, a["id"].(string), time.Date(2026, 3, 16, 12, 0, 0, 0, brasilia))
		ce.clock.Set(time.Date(2026, 3, 17, 12, 0, 0, 0, brasilia))
		// 7 days late: fine R$ 20,00, interest 1 % × 7/30 = R$ 2,33.
		if got := ce.ok(200, "GET", "/v1/charges/"+b["id"].(string), nil); num(got, "updated_amount") != 1022.33 || num(got, "days_late") != 7 {
			t.Fatalf("the day after the grace: %v", got)
		}
	})
}

// TestCompanyInterestCap: since Lei 14.905/2024 art. 3º the Lei de Usura
// no longer binds obligations between legal entities, so an organization
// may set company_interest_cap_percent and a CNPJ charge may then carry
// 3 % a month; a CPF charge may not exceed 1 % a month (Decreto
// 22.626/1933 art. 1º), and the setting survives a reload.
func TestCompanyInterestCap(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("acme", "ACME Ltda", cnpjOK)
		ce.debtor("maria", "Maria", cpfOK)
		body := func(debtor, ext string, interest float64) obj {
			return obj{"debtor_id": debtor, "external_id": ext, "amount": 1000, "due_date": "2026-04-10", "fine_percent": 2, "interest_percent": interest}
		}
		// The default company cap is still 1 %.
		fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/charges", body("acme", "acme-0", 3))
		wantFields(t, fields, "interest_percent")

		st := ce.ok(200, "PATCH", "/v1/settings", obj{"company_interest_cap_percent": 5})
		if num(st, "company_interest_cap_percent") != 5 || num(st, "consumer_interest_cap_percent") != 1 || num(st, "interest_cap_percent") != 1 {
			t.Fatalf("settings: %v", st)
		}
		if got := ce.charge(body("acme", "acme-1", 3)); num(got, "interest_percent") != 3 {
			t.Fatalf("CNPJ at 3 %%: %v", got)
		}
		fields, msg := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/charges", body("maria", "maria-1", 3))
		wantFields(t, fields, "interest_percent")
		if msg == "" {
			t.Fatal("no message")
		}
		ce.charge(body("maria", "maria-2", 1))
		fields, _ = ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "PATCH", "/v1/settings", obj{"company_interest_cap_percent": 101})
		wantFields(t, fields, "company_interest_cap_percent")
		stored, err := (&ledger.Service{DB: db}).Settings(t.Context(), ce.Mine.ID)
		if err != nil || stored.CompanyInterestCap != 50_000 {
			t.Fatalf("stored: %+v %v", stored, err)
		}
	})
}

// TestOrganizationPlaceHolidays: an organization in São Paulo/SP has
// 25 January 2027 closed (Lei municipal de São Paulo 14.485/2007) and
// 9 July (Lei estadual 9.497/1997) without typing them: a charge due on
// Monday 2027-01-25 paid on Tuesday the 26th owes nothing extra. A city
// the table lacks, or one without its state, is refused naming the field.
func TestOrganizationPlaceHolidays(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		st := ce.ok(200, "PATCH", "/v1/settings", obj{"state": "sp", "city": "São Paulo"})
		if st["state"] != "SP" || st["city"] != "3550308" || st["city_name"] != "São Paulo" {
			t.Fatalf("settings: %v", st)
		}
		ce.debtor("maria", "Maria", cpfOK)
		c := ce.charge(obj{"debtor_id": "maria", "external_id": "jan", "amount": 1000, "due_date": "2027-01-25", "fine_percent": 2, "interest_percent": 1})
		ce.payOnTime(t, c["id"].(string), time.Date(2027, 1, 26, 12, 0, 0, 0, brasilia))

		stored, err := (&ledger.Service{DB: db}).Settings(t.Context(), ce.Mine.ID)
		if err != nil {
			t.Fatal(err)
		}
		cal := stored.Calendar()
		for _, day := range []string{"2027-01-25", "2027-07-09"} {
			d, _ := ledger.DateIn("d", day)
			if cal.IsBusinessDay(d) {
				t.Errorf("%s should be closed in São Paulo/SP", day)
			}
		}
		for _, tc := range []struct {
			body  obj
			field string
		}{
			{obj{"state": "XX"}, "state"},
			{obj{"city": "Campinas"}, "city"},
			{obj{"state": "", "city": "3550308"}, "city"},
			{obj{"state": "RJ", "city": "3550308"}, "city"},
		} {
			fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "PATCH", "/v1/settings", tc.body)
			wantFields(t, fields, tc.field)
		}
		// A refused change loses nothing; changing the state clears the city.
		if got := ce.ok(200, "GET", "/v1/settings", nil); got["city"] != "3550308" {
			t.Fatalf("after refusals: %v", got)
		}
		if got := ce.ok(200, "PATCH", "/v1/settings", obj{"state": "RJ"}); got["state"] != "RJ" || got["city"] != "" {
			t.Fatalf("state change: %v", got)
		}
	})
}
