package dunning

import (
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// Documents with check digits worked by hand. CPF 529.982.247-25: the
// first digit is 11 − (5·10+2·9+9·8+9·7+8·6+2·5+2·4+4·3+7·2 = 295) mod 11
// = 11 − 9 = 2; the second 11 − (5·11+…+7·3+2·2 = 347) mod 11 = 11 − 6
// = 5. CNPJ 11.222.333/0001-81 the same way with the weights 5 4 3 2 9 8
// 7 6 5 4 3 2 (sum 102, 102 mod 11 = 3, digit 8) and 6 5 4 3 2 9 8 7 6 5 4
// 3 2 (sum 120, 120 mod 11 = 10, digit 1).
const (
	cpfOK   = "529.982.247-25"
	cpfBad  = "529.982.247-26"
	cnpjOK  = "11.222.333/0001-81"
	cnpjBad = "11.222.333/0001-80"
)

func TestDocumentsCheckDigits(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]bool{cpfOK: true, "52998224725": true, cpfBad: false, "111.111.111-11": false, cnpjOK: true, cnpjBad: false, "12.ABC.345/01DE-35": true} {
		if _, ok := brazil.DocumentKind(doc); ok != want {
			t.Errorf("%s: valid %v, want %v", doc, ok, want)
		}
	}
}

// TestDebtors drives every debtor route on both engines: upsert (created,
// then replaced), documents checked and stored normalised, contacts
// normalised, list filters and pages, get with what the debtor owes,
// update, opt-outs with when and why, archive, validation naming fields,
// roles, and the other organization's debtors answering NOT_FOUND.
func TestDebtors(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		d := ce.ok(201, "PUT", "/v1/debtors/cust-1", obj{"name": " Maria da Silva ", "document": "52998224725",
			"emails": []string{"maria@Example.COM", "maria@example.com"}, "phones": []string{"(11) 98765-4321", "11 3333-4444"},
			"address": obj{"street": "Av. Paulista", "number": "1000", "city": "São Paulo", "state": "sp", "zip": "01310100"}})
		if d["name"] != "Maria da Silva" || d["document"] != cpfOK || d["person_kind"] != "natural" || d["status"] != "active" ||
			len(d["emails"].([]any)) != 1 || d["emails"].([]any)[0] != "maria@example.com" ||
			d["phones"].([]any)[0] != "+5511987654321" || d["phones"].([]any)[1] != "+551133334444" ||
			d["address"].(obj)["state"] != "SP" || d["address"].(obj)["zip"] != "01310-100" || num(d, "total_open_amount") != 0 {
			t.Fatalf("created: %v", d)
		}
		id := d["id"].(string)
		var stored string
		if err := db.Get(t.Context(), &stored, `SELECT document FROM dunning_debtors WHERE id = ?`, id); err != nil || stored != "52998224725" {
			t.Fatalf("stored document %q %v", stored, err)
		}
		// The same external_id replaces every field (the address is gone).
		d = ce.ok(200, "PUT", "/v1/debtors/cust-1", obj{"name": "Maria S.", "document": cpfOK})
		if d["id"] != id || d["name"] != "Maria S." || d["address"] != nil || len(d["emails"].([]any)) != 0 {
			t.Fatalf("replaced: %v", d)
		}
		acme := ce.ok(201, "PUT", "/v1/debtors/acme", obj{"name": "ACME Ltda", "document": "11222333000181", "emails": []string{"financeiro@acme.com.br"}})
		if acme["document"] != cnpjOK || acme["person_kind"] != "juridical" {
			t.Fatalf("company: %v", acme)
		}
		ce.debtor("cust-2", "JOÃO Souza", "111.444.777-35")

		// Validation names the field.
		for _, c := range []struct {
			body  obj
			field string
		}{
			{obj{"name": "X", "document": cpfBad}, "document"},
			{obj{"name": "X", "document": cnpjBad}, "document"},
			{obj{"name": "X", "document": "111.111.111-11"}, "document"},
			{obj{"name": "X"}, "document"},
			{obj{"name": "  ", "document": cpfOK}, "name"},
			{obj{"name": "X", "document": cpfOK, "emails": []string{"ok@example.com", "Maria <m@x.com>"}}, "emails.1"},
			{obj{"name": "X", "document": cpfOK, "phones": []string{"+1 212 555 0100"}}, "phones.0"},
			{obj{"name": "X", "document": cpfOK, "address": obj{"zip": "123"}}, "address.zip"},
			{obj{"name": "X", "document": cpfOK, "status": "archived"}, "status"},
		} {
			fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "PUT", "/v1/debtors/bad", c.body)
			wantFields(t, fields, c.field)
		}

		// Lists: by name, a page at a time, filtered.
		p := ce.list("/v1/debtors")
		if p.total != 3 || len(p.data) != 3 || p.data[0]["name"] != "ACME Ltda" || p.data[2]["name"] != "Maria S." {
			t.Fatalf("list: %+v", p)
		}
		p = ce.list("/v1/debtors?per_page=2&page=2&sort_by=name&sort_order=desc")
		if p.total != 3 || p.totalPages != 2 || len(p.data) != 1 || p.data[0]["name"] != "ACME Ltda" {
			t.Fatalf("page 2: %+v", p)
		}
		for q, want := range map[string]string{"q=joão": "JOÃO Souza", "q=João": "JOÃO Souza", "q=ACME": "ACME Ltda", "q=financeiro%40acme": "ACME Ltda",
			"q=11.222.333": "ACME Ltda", "q=9822": "Maria S.", "document=529.982.247-25": "Maria S."} {
			if p := ce.list("/v1/debtors?" + q); p.total != 1 || p.data[0]["name"] != want {
				t.Fatalf("%s: %+v", q, p)
			}
		}
		if p := ce.list("/v1/debtors?q=100%25"); p.total != 0 {
			t.Fatalf("a %% matches itself: %+v", p)
		}
		fields, _ := ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "GET", "/v1/debtors?name=Maria", nil)
		wantFields(t, fields, "name")
		fields, _ = ce.fails(ce.Owner, 422, "VALIDATION_ERROR", "GET", "/v1/debtors?per_page=101", nil)
		wantFields(t, fields, "per_page")

		// Get by id or external_id, with what it owes.
		ce.charge(obj{"debtor_id": "cust-1", "amount": 100.10, "due_date": "2026-03-20"})
		ce.charge(obj{"debtor_id": id, "amount": 50, "due_date": "2026-03-01"}) // already late: overdue
		got := ce.ok(200, "GET", "/v1/debtors/cust-1", nil)
		if got["id"] != id || num(got, "total_open_amount") != 150.10 || num(got, "overdue_amount") != 50 || num(got, "open_charges") != 2 {
			t.Fatalf("get: %v", got)
		}
		if p := ce.list("/v1/debtors?q=maria"); p.total != 1 || num(p.data[0], "total_open_amount") != 150.10 || num(p.data[0], "overdue_amount") != 50 {
			t.Fatalf("list totals: %+v", p)
		}
		if c := ce.ok(200, "GET", "/v1/me", nil)["counts"].(obj); num(c, "debtors") != 3 || num(c, "open_charges") != 2 || num(c, "open_amount") != 150.10 || num(c, "overdue_amount") != 50 {
			t.Fatalf("me counts: %v", c)
		}

		// Update changes what it names.
		got = ce.ok(200, "PATCH", "/v1/debtors/"+id, obj{"phones": []string{"+55 21 99876-5432"}, "address": obj{"city": "Rio de Janeiro", "state": "RJ"}})
		if got["name"] != "Maria S." || got["phones"].([]any)[0] != "+5521998765432" || got["address"].(obj)["city"] != "Rio de Janeiro" {
			t.Fatalf("update: %v", got)
		}
		got = ce.ok(200, "PATCH", "/v1/debtors/"+id, obj{"address": obj{}, "document": cnpjOK})
		if got["address"] != nil || got["person_kind"] != "juridical" {
			t.Fatalf("update 2: %v", got)
		}
		fields, _ = ce.fails(ce.Member, 422, "VALIDATION_ERROR", "PATCH", "/v1/debtors/"+id, obj{"document": cnpjBad})
		wantFields(t, fields, "document")
		ce.fails(ce.Viewer, 403, "FORBIDDEN", "PATCH", "/v1/debtors/"+id, obj{"name": "Y"})

		// Opt-outs: per channel, with when and why; removed again.
		fields, _ = ce.fails(ce.Member, 422, "VALIDATION_ERROR", "PUT", "/v1/debtors/"+id+"/opt-outs", obj{"channel": "sms"})
		wantFields(t, fields, "reason")
		fields, _ = ce.fails(ce.Member, 422, "VALIDATION_ERROR", "PUT", "/v1/debtors/"+id+"/opt-outs", obj{"channel": "fax", "reason": "x"})
		wantFields(t, fields, "channel")
		code, out := ce.call(ce.Member, "PUT", "/v1/debtors/"+id+"/opt-outs", obj{"channel": "sms", "reason": "asked by phone"})
		opts, _ := out["data"].(obj)["opt_outs"].(obj)
		sms, _ := opts["sms"].(obj)
		if code != 200 || len(opts) != 3 || opts["email"] != nil || sms["reason"] != "asked by phone" ||
			sms["source"] != ce.Member.ID || sms["created_at"] != "2026-03-10T15:00:00Z" {
			t.Fatalf("opt out: %d %v", code, out)
		}
		ce.ok(200, "PUT", "/v1/debtors/"+id+"/opt-outs", obj{"channel": "whatsapp", "reason": "STOP reply"})
		rec, err := ledger.GetDebtor(t.Context(), db, ce.Mine.ID, "cust-1")
		if err != nil || !rec.OptedOut("sms") || !rec.OptedOut("whatsapp") || rec.OptedOut("email") {
			t.Fatalf("record opt-outs: %+v %v", rec.OptOuts, err)
		}
		got = ce.ok(200, "PUT", "/v1/debtors/"+id+"/opt-outs", obj{"channel": "sms", "opted_out": false})
		if opts := got["opt_outs"].(obj); opts["sms"] != nil || opts["whatsapp"].(obj)["reason"] != "STOP reply" {
			t.Fatalf("opted back in: %v", got)
		}

		// Archive: refused with open charges, then allowed, repeatable.
		ce.fails(ce.Member, 403, "FORBIDDEN", "POST", "/v1/debtors/cust-2/archive", nil)
		_, msg := ce.fails(ce.Admin, 422, "UNPROCESSABLE", "POST", "/v1/debtors/cust-1/archive", nil)
		if msg != "the debtor has 2 open charge(s): cancel or archive them before archiving the debtor" {
			t.Fatalf("archive message: %s", msg)
		}
		for range 2 {
			code, out := ce.call(ce.Admin, "POST", "/v1/debtors/cust-2/archive", nil)
			if code != 200 || out["data"].(obj)["status"] != "archived" || out["data"].(obj)["archived_at"] == nil {
				t.Fatalf("archive: %d %v", code, out)
			}
		}
		if p := ce.list("/v1/debtors"); p.total != 2 {
			t.Fatalf("archived still listed: %+v", p)
		}
		if p := ce.list("/v1/debtors?status=archived"); p.total != 1 || p.data[0]["external_id"] != "cust-2" {
			t.Fatalf("archived list: %+v", p)
		}
		ce.fails(ce.Owner, 422, "UNPROCESSABLE", "POST", "/v1/charges", obj{"debtor_id": "cust-2", "amount": 1, "due_date": "2026-04-01"})
		// An upsert makes it active again.
		if d := ce.ok(200, "PUT", "/v1/debtors/cust-2", obj{"name": "João Souza", "document": "11144477735"}); d["status"] != "active" || d["archived_at"] != nil {
			t.Fatalf("reactivated: %v", d)
		}

		// The other organization sees none of it, by id or external id.
		for _, path := range []string{"/v1/debtors/" + id, "/v1/debtors/cust-1"} {
			ce.fails(ce.Other, 404, "NOT_FOUND", "GET", path, nil)
			ce.fails(ce.Other, 404, "NOT_FOUND", "PATCH", path, obj{"name": "Stolen"})
			ce.fails(ce.Other, 404, "NOT_FOUND", "PUT", path+"/opt-outs", obj{"channel": "email", "reason": "x"})
			ce.fails(ce.Other, 404, "NOT_FOUND", "POST", path+"/archive", nil)
		}
		code, out = ce.call(ce.Other, "GET", "/v1/debtors", nil)
		if code != 200 || num(out["meta"].(obj), "total") != 0 {
			t.Fatalf("theirs: %v", out)
		}
		// Their own cust-1 is another debtor.
		code, out = ce.call(ce.Other, "PUT", "/v1/debtors/cust-1", obj{"name": "Other", "document": cpfOK})
		if code != 201 || out["data"].(obj)["id"] == id {
			t.Fatalf("their cust-1: %d %v", code, out)
		}
	})
}

// listed is one numbered page as the tests read it.
type listed struct {
	data       []obj
	total      int
	totalPages int
}

func (ce *dunEnv) list(path string) listed {
	ce.t.Helper()
	code, out := ce.call(ce.Owner, "GET", path, nil)
	if code != 200 {
		ce.t.Fatalf("GET %s: %d %v", path, code, out)
	}
	var l listed
	for _, d := range out["data"].([]any) {
		l.data = append(l.data, d.(obj))
	}
	m := out["meta"].(obj)
	l.total, l.totalPages = int(num(m, "total")), int(num(m, "total_pages"))
	return l
}
