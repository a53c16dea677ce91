package dunning

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// The debtor page (dunning/portal; docs/dunning.md "The debtor page").

// portalSetup is Dunning with a creditor of CNPJ, address and Pix key,
// the debtor maria with an overdue charge of R$ 1.000,00 (fine 2 %,
// interest 1 % a month, due 20 February 2026) carrying a boleto barcode
// and a pending one of R$ 250,00; it answers maria's page path.
func portalSetup(t *testing.T, db *store.DB) (*dunEnv, string) {
	t.Helper()
	pe := newCoreEnv(t, db)
	pe.ok(200, "PUT", "/v1/settings/creditor", obj{"legal_name": "Escola Exemplo Ltda", "document": cnpjOK,
		"address": obj{"street": "Rua das Flores", "number": "10", "city": "São Paulo", "state": "SP", "zip": "01310-100"}, "pix_key": "+5511912345678"})
	pe.debtor("maria", "Maria da Silva", cpfOK)
	pe.charge(obj{"debtor_id": "maria", "external_id": "mens-fev", "amount": 1000, "due_date": "2026-02-20", "description": "Mensalidade de fevereiro",
		"fine_percent": 2, "interest_percent": 1, "barcode": braziltest.ItauBarcode})
	pe.charge(obj{"debtor_id": "maria", "external_id": "mens-mar", "amount": 250, "due_date": "2026-03-20", "description": "Mensalidade de março"})
	return pe, pe.portalPath("maria")
}

// portalPath is the debtor's page link of now, as a path of the listener.
func (e *dunEnv) portalPath(debtor string) string {
	e.t.Helper()
	link := e.ok(200, "GET", "/v1/debtors/"+debtor+"/portal-link", nil)
	u, _ := link["url"].(string)
	if !strings.HasPrefix(u, ntLinkBase+"/v1/portal/") {
		e.t.Fatalf("portal link %v", link)
	}
	return strings.TrimPrefix(u, ntLinkBase)
}

// neutral wants the one answer of a link that does not open the page.
func neutral(t *testing.T, what string, p producttest.Page, want producttest.Page) {
	t.Helper()
	if p.Status != http.StatusNotFound || p.Body != want.Body || p.Header.Get("Content-Security-Policy") != want.Header.Get("Content-Security-Policy") {
		t.Fatalf("%s: %d, not the neutral page:\n%s", what, p.Status, p.Body)
	}
}

// TestPortalLinkAuthority: the signed link is the authority. A forged,
// changed or garbage link, an expired one, one of an older generation
// after a rotation, one revoked by an admin or by the debtor on the page,
// and one of an archived debtor all answer the same page with the same
// status and nothing of the debtor; rotation answers a link that works.
func TestPortalLinkAuthority(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe, link := portalSetup(t, db)
		b := pe.Browser()
		p := b.Get(link)
		if p.Status != 200 || !strings.Contains(p.Body, "Maria da Silva") || !strings.Contains(p.Header.Get("Content-Security-Policy"), "script-src 'sha256-") {
			t.Fatalf("the link: %d %v\n%s", p.Status, p.Header, p.Body)
		}
		want := b.Get("/v1/portal/nothing-at-all")
		if want.Status != 404 || !strings.Contains(want.Body, `id="title"`) || strings.Contains(want.Body, "Maria") {
			t.Fatalf("neutral page: %d\n%s", want.Status, want.Body)
		}
		token := strings.TrimPrefix(link, "/v1/portal/")
		payload, sig, _ := strings.Cut(token, ".")
		flip := func(s string) string { // its first character, another
			if s[0] == 'A' {
				return "B" + s[1:]
			}
			return "A" + s[1:]
		}
		neutral(t, "forged signature", b.Get("/v1/portal/"+payload+"."+flip(sig)), want)
		neutral(t, "changed payload", b.Get("/v1/portal/"+flip(payload)+"."+sig), want)
		neutral(t, "statement of a forged link", b.Get("/v1/portal/"+payload+"."+flip(sig)+"/statement.pdf"), want)

		// A debtor without charges, archived: its link opens nothing.
		pe.debtor("ana", "Ana Souza", "111.444.777-35")
		ana := pe.portalPath("ana")
		if p := b.Get(ana); p.Status != 200 || !strings.Contains(p.Body, `id="nothing-owed"`) {
			t.Fatalf("ana's page: %d\n%s", p.Status, p.Body)
		}
		pe.ok(200, "POST", "/v1/debtors/ana/archive", nil)
		neutral(t, "archived debtor", b.Get(ana), want)
		// Made active again, the debtor's old links stay closed; a
		// rotation opens new ones.
		pe.debtor("ana", "Ana Souza", "111.444.777-35")
		neutral(t, "reactivated debtor's old link", b.Get(ana), want)
		if got := pe.ok(200, "GET", "/v1/debtors/ana/portal-link", nil); got["revoked_by"] != "archive" || got["url"] != nil {
			t.Fatalf("archived debtor's link: %v", got)
		}

		// Rotation: the old link stops, the new one works.
		rotated := pe.ok(200, "POST", "/v1/debtors/maria/portal-link", obj{"action": "rotate"})
		if rotated["generation"] != 1.0 || rotated["revoked"] != false {
			t.Fatalf("rotate: %v", rotated)
		}
		neutral(t, "older generation", b.Get(link), want)
		link = strings.TrimPrefix(rotated["url"].(string), ntLinkBase)
		if p := b.Get(link); p.Status != 200 {
			t.Fatalf("the rotated link: %d", p.Status)
		}
		// Only an admin rotates; another organization's debtor is not found.
		pe.fails(pe.Member, 403, "FORBIDDEN", "POST", "/v1/debtors/maria/portal-link", obj{"action": "revoke"})
		pe.fails(pe.Other, 404, "NOT_FOUND", "GET", "/v1/debtors/maria/portal-link", nil)
		pe.fails(pe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/debtors/maria/portal-link", obj{"action": "burn"})

		// Revocation by an admin: no link opens the page, none is answered.
		revoked := pe.ok(200, "POST", "/v1/debtors/maria/portal-link", obj{"action": "revoke"})
		if revoked["url"] != nil || revoked["revoked"] != true {
			t.Fatalf("revoke: %v", revoked)
		}
		neutral(t, "revoked", b.Get(link), want)
		link = strings.TrimPrefix(pe.ok(200, "POST", "/v1/debtors/maria/portal-link", obj{"action": "rotate"})["url"].(string), ntLinkBase)

		// The debtor closes the page themselves.
		page := b.Get(link)
		form := url.Values{"form_token": {formToken(t, page.Body, "opt-out")}, "channel": {"portal"}}
		if p := b.Post(link+"/opt-out", form); p.Status != 200 || !strings.Contains(p.Body, `id="title"`) {
			t.Fatalf("closing: %d\n%s", p.Status, p.Body)
		}
		neutral(t, "closed by the debtor", b.Get(link), want)
		if got := pe.ok(200, "GET", "/v1/debtors/maria/portal-link", nil); got["revoked_by"] != "debtor" {
			t.Fatalf("revoked by %v", got)
		}

		// Expiry: 30 days by default; a link made now opens no more after.
		link = strings.TrimPrefix(pe.ok(200, "POST", "/v1/debtors/maria/portal-link", obj{"action": "rotate"})["url"].(string), ntLinkBase)
		pe.clock.Set(pe.clock.Now().Add(30*24*time.Hour - time.Minute))
		if p := b.Get(link); p.Status != 200 {
			t.Fatalf("a link a minute before its expiry: %d", p.Status)
		}
		pe.clock.Set(pe.clock.Now().Add(2 * time.Minute))
		neutral(t, "expired", b.Get(link), want)
	})
}

// formToken is the token of the page's form posting to …/action.
func formToken(t *testing.T, body, action string) string {
	t.Helper()
	re := regexp.MustCompile(`/` + action + `">\n<input type="hidden" name="form_token" value="([^"]*)">`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s form in\n%s", action, body)
	}
	return html.UnescapeString(m[1])
}

// TestPortalRateLimit: one link is answered 60 times a minute, whatever
// it is; the 61st is 429, while another link from the same address
// still opens.
func TestPortalRateLimit(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe, link := portalSetup(t, db)
		b := pe.Browser()
		for i := 0; i < 60; i++ {
			if p := b.Get("/v1/portal/guessed-link"); p.Status != 404 {
				t.Fatalf("request %d: %d", i, p.Status)
			}
		}
		if p := b.Get("/v1/portal/guessed-link"); p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" {
			t.Fatalf("the 61st: %d %v", p.Status, p.Header)
		}
		if p := b.Get(link); p.Status != 200 {
			t.Fatalf("another link: %d", p.Status)
		}
	})
}

var (
	pixRE     = regexp.MustCompile(`<textarea id="pix-(\d+)" class="pix" readonly rows="4">([^<]*)</textarea>`)
	qrRE      = regexp.MustCompile(`<img class="qr" src="([^"]+)"`)
	updatedRE = regexp.MustCompile(`<dd class="updated">([^<]*)</dd>`)
	fineRE    = regexp.MustCompile(`<dd class="fine">([^<]*)</dd>`)
	interRE   = regexp.MustCompile(`<dd class="interest">([^<]*)</dd>`)
	offerRE   = regexp.MustCompile(`name="offer" id="offer-(\d+)" value="(\d+):(\d+)"`)
)

// TestPortalPage: the page names the creditor (CDC art. 42-A: name,
// CNPJ, address), shows each open charge with the ledger's breakdown of
// today in the organization's zone, a Pix code that decodes to that
// day's amount and the charge's txid, its QR, its boleto line; lists
// payments; hands the statement PDF; opts out of e-mail through the
// unsubscribe link's write; and once everything is paid says nothing is
// owed. Tomorrow's page shows tomorrow's amount.
func TestPortalPage(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe, link := portalSetup(t, db)
		b := pe.Browser()
		check := func() {
			t.Helper()
			p := b.Get(link)
			if p.Status != 200 {
				t.Fatalf("page %d", p.Status)
			}
			for _, want := range []string{"Escola Exemplo Ltda", "11.222.333/0001-81", "Rua das Flores, 10 - São Paulo/SP - 01310-100", "art. 42-A",
				braziltest.ItauLine, "Mensalidade de fevereiro", "Mensalidade de março"} {
				if !strings.Contains(html.UnescapeString(p.Body), want) {
					t.Fatalf("the page lacks %q:\n%s", want, p.Body)
				}
			}
			pix := pixRE.FindAllStringSubmatch(p.Body, -1)
			upd := updatedRE.FindAllStringSubmatch(p.Body, -1)
			fines, inters := fineRE.FindAllStringSubmatch(p.Body, -1), interRE.FindAllStringSubmatch(p.Body, -1)
			if len(pix) != 2 || len(upd) != 2 {
				t.Fatalf("charges shown: %d pix, %d amounts", len(pix), len(upd))
			}
			for i, ref := range []string{"mens-fev", "mens-mar"} {
				c := pe.ok(200, "GET", "/v1/charges/"+ref, nil)
				updated, _ := money.FromFloat(c["updated_amount"].(float64))
				fine, _ := money.FromFloat(c["fine_amount"].(float64))
				interest, _ := money.FromFloat(c["interest_amount"].(float64))
				if upd[i][1] != updated.String() || fines[i][1] != fine.String() || inters[i][1] != interest.String() {
					t.Fatalf("%s: page %s/%s/%s, ledger %s/%s/%s", ref, upd[i][1], fines[i][1], inters[i][1], updated, fine, interest)
				}
				code, err := brazil.DecodePix(html.UnescapeString(pix[i][2]))
				txid, _ := ledger.PixTxID(c["id"].(string))
				if err != nil || code.AmountCents != int64(updated) || code.TxID != txid {
					t.Fatalf("%s: pix %+v %v, want %s %s", ref, code, err, updated, txid)
				}
			}
			qr := qrRE.FindStringSubmatch(p.Body)
			if qr == nil {
				t.Fatal("no QR")
			}
			if q := b.Get(html.UnescapeString(qr[1])); q.Status != 200 || q.Header.Get("Content-Type") != "image/png" {
				t.Fatalf("QR: %d %v", q.Status, q.Header)
			}
		}
		check()
		c := pe.ok(200, "GET", "/v1/charges/mens-fev", nil)
		if c["fine_amount"].(float64) == 0 || c["interest_amount"].(float64) == 0 {
			t.Fatalf("the overdue charge costs nothing: %v", c)
		}
		// Tomorrow (one minute past midnight in Brasília): more interest,
		// and the page follows the ledger.
		pe.clock.Set(time.Date(2026, 3, 11, 0, 1, 0, 0, brasilia))
		check()

		st := b.Get(link + "/statement.pdf")
		if st.Status != 200 || st.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(st.Body, "%PDF") ||
			!strings.Contains(pdfText(t, []byte(st.Body)), "Mensalidade de fevereiro") {
			t.Fatalf("statement: %d %v", st.Status, st.Header)
		}

		// Opting out of e-mail on the page is the unsubscribe write.
		page := b.Get(link)
		if p := b.Post(link+"/opt-out", url.Values{"form_token": {formToken(t, page.Body, "opt-out")}, "channel": {"email"}}); p.Status != 303 {
			t.Fatalf("opt-out: %d", p.Status)
		}
		d := pe.ok(200, "GET", "/v1/debtors/maria", nil)
		if o, _ := d["opt_outs"].(obj)["email"].(obj); o == nil || o["reason"] != "debtor page" || o["source"] != "debtor" {
			t.Fatalf("opt-outs %v", d["opt_outs"])
		}
		if p := b.Get(link); !strings.Contains(p.Body, `id="stopped-email"`) || strings.Contains(p.Body, `id="stop-email"`) {
			t.Fatal("the page still offers to stop e-mail")
		}
		// A form token that does not verify changes nothing.
		if p := b.Post(link+"/opt-out", url.Values{"form_token": {formToken(t, b.Get(link+"").Body, "opt-out")[:10] + "x"}, "channel": {"sms"}}); p.Status != 303 {
			t.Fatalf("opt-out with the wrong token: %d", p.Status)
		}
		if d := pe.ok(200, "GET", "/v1/debtors/maria", nil); d["opt_outs"].(obj)["sms"] != nil {
			t.Fatal("a bad form token opted out")
		}

		// Everything paid: nothing owed, the payments listed.
		pe.closeCharge(t, "mens-fev")
		pe.closeCharge(t, "mens-mar")
		p := b.Get(link)
		if !strings.Contains(p.Body, `id="nothing-owed"`) || strings.Contains(p.Body, `class="pix"`) || strings.Count(p.Body, `<td class="amount">`) != 2 {
			t.Fatalf("after paying:\n%s", p.Body)
		}
	})
}

// TestPortalSettingsValidated: the portal's settings are checked and
// kept; a bad one changes nothing.
func TestPortalSettingsValidated(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe := newCoreEnv(t, db)
		st := pe.ok(200, "GET", "/v1/settings", nil)
		if st["portal_link_days"] != 30.0 || st["portal_agreements_enabled"] != false || st["portal_max_installments"] != 6.0 {
			t.Fatalf("defaults %v", st)
		}
		for field, bad := range map[string]any{"portal_link_days": 0, "portal_max_installments": 61, "portal_first_due_days": 29, "portal_max_discount_percent": 101} {
			fields, _ := pe.fails(pe.Owner, 422, "VALIDATION_ERROR", "PATCH", "/v1/settings", obj{field: bad})
			wantFields(t, fields, field)
		}
		pe.fails(pe.Member, 403, "FORBIDDEN", "PATCH", "/v1/settings", obj{"portal_agreements_enabled": true})
		st = pe.ok(200, "PATCH", "/v1/settings", obj{"portal_agreements_enabled": true, "portal_max_installments": 3, "portal_max_discount_percent": 50,
			"portal_first_due_days": 10, "portal_link_days": 7})
		if st["portal_agreements_enabled"] != true || st["portal_max_installments"] != 3.0 || st["portal_max_discount_percent"] != 50.0 ||
			st["portal_first_due_days"] != 10.0 || st["portal_link_days"] != 7.0 {
			t.Fatalf("saved %v", st)
		}
		pe.debtor("maria", "Maria da Silva", cpfOK)
		got := pe.ok(200, "GET", "/v1/debtors/maria/portal-link", nil)
		exp, _ := time.Parse(time.RFC3339, got["expires_at"].(string))
		if !exp.Equal(coreStart.Add(7 * 24 * time.Hour).UTC()) {
			t.Fatalf("expires %v", got)
		}
	})
}

// TestPortalAgreement: with self-service agreements enabled, the page
// offers 1 to 3 installments whose cents and dates are exactly what
// dunning_agreements_create proposes for the same terms; two identical
// submissions in parallel make one agreement, accepted as an admin's
// accept would (charges in_agreement, installments made charges, the
// events), recorded as created by the debtor on the page; a second,
// different submission meanwhile makes none.
func TestPortalAgreement(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe, link := portalSetup(t, db)
		b := pe.Browser()
		if p := b.Get(link); strings.Contains(p.Body, `id="agreement"`) {
			t.Fatal("agreements offered while disabled")
		}
		pe.ok(200, "PATCH", "/v1/settings", obj{"portal_agreements_enabled": true, "portal_max_installments": 3, "portal_max_discount_percent": 50,
			"portal_first_due_days": 10})
		page := b.Get(link)
		offers := offerRE.FindAllStringSubmatch(page.Body, -1)
		if len(offers) != 3 {
			t.Fatalf("offers %v", offers)
		}
		// The admin's proposal of the same terms: all open charges, half
		// the fine and interest off, first due 10 days on (20 March).
		fev := pe.ok(200, "GET", "/v1/charges/mens-fev", nil)
		late, _ := money.FromFloat(fev["fine_amount"].(float64) + fev["interest_amount"].(float64))
		discount := (late + 1) / 2
		admin := pe.ok(201, "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"mens-fev", "mens-mar"}, "installments": 3,
			"discount_amount": discount.Float64(), "due_day": 20})
		amounts, dates, _ := installmentsOf(admin)
		body := html.UnescapeString(page.Body)
		for i, a := range amounts {
			cents, _ := money.FromFloat(a)
			d, _ := time.Parse("2006-01-02", dates[i])
			want := "Parcela " + string(rune('1'+i)) + ": " + cents.String() + ", vence em " + d.Format("02/01/2006")
			if !strings.Contains(body, want) {
				t.Fatalf("the page lacks %q:\n%s", want, body)
			}
		}
		total, _ := money.FromFloat(admin["total_amount"].(float64))
		if offers[2][3] != strings.TrimLeft(strings.ReplaceAll(total.Decimal(), ".", ""), "0") {
			t.Fatalf("offer total %s, admin %s", offers[2][3], total)
		}
		// While the admin's proposal is open the page offers nothing; once
		// canceled, again.
		if p := b.Get(link); strings.Contains(p.Body, `id="agreement"`) {
			t.Fatal("offered over an open proposal")
		}
		pe.ok(200, "POST", "/v1/agreements/"+admin["id"].(string)+"/cancel", nil)
		page = b.Get(link)
		token := formToken(t, page.Body, "agreement")
		offers = offerRE.FindAllStringSubmatch(page.Body, -1)

		// Two submissions of the same form, and one of another form, at once.
		other := formToken(t, b.Get(link).Body, "agreement")
		var wg sync.WaitGroup
		codes := make([]int, 3)
		for i, tok := range []string{token, token, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = pe.Browser().Post(link+"/agreement", url.Values{"form_token": {tok}, "offer": {offers[2][2] + ":" + offers[2][3]}}).Status
			}()
		}
		wg.Wait()
		for i, c := range codes {
			if c != 303 {
				t.Fatalf("submission %d: %d", i, c)
			}
		}
		list := pe.list("/v1/agreements?debtor_id=maria&status=accepted")
		if len(list.data) != 1 {
			t.Fatalf("accepted agreements: %d", len(list.data))
		}
		ag := list.data[0]
		if ag["created_by"] != "debtor:portal" || ag["installments_count"] != 3.0 || ag["term_document_id"] == nil {
			t.Fatalf("agreement %v", ag)
		}
		for _, ref := range []string{"mens-fev", "mens-mar"} {
			if st, _ := pe.chargeStatus(ref); st != "in_agreement" {
				t.Fatalf("%s is %s", ref, st)
			}
		}
		_, _, charges := installmentsOf(ag)
		if len(charges) != 3 {
			t.Fatalf("installment charges %v", charges)
		}
		// The events an admin's accept emits.
		if ev := pe.events(ag["id"].(string)); !slices.Equal(ev, []string{escalation.EventAgreementProposed, escalation.EventAgreementAccepted}) {
			t.Fatalf("events %v", ev)
		}
		// The page now shows the installments with their Pix, no offer.
		p := b.Get(link + "?aceito=1")
		if !strings.Contains(p.Body, `id="accepted"`) || strings.Contains(p.Body, `id="agreement"`) || len(pixRE.FindAllString(p.Body, -1)) != 3 {
			t.Fatalf("after accepting:\n%s", p.Body)
		}
	})
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestPortalURLInMessages: {{debtor.portal_url}} renders the debtor's link
// of the moment the message is composed, which opens the page; while the
// debtor's links are revoked it renders empty.
func TestPortalURLInMessages(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe, _ := portalSetup(t, db)
		send := func() string {
			t.Helper()
			code, body := pe.Do(pe.Owner, "POST", "/v1/notifications", map[string]any{"debtor_id": "maria", "channel": "email",
				"body": "Maria, veja o que está em aberto: {{debtor.portal_url}}"})
			return data[ntView](t, code, body, 202).Body
		}
		body := send()
		i := strings.Index(body, ntLinkBase+"/v1/portal/")
		if i < 0 {
			t.Fatalf("no link in %q", body)
		}
		link, _, _ := strings.Cut(body[i:], "\n")
		if p := pe.Browser().Get(strings.TrimPrefix(link, ntLinkBase)); p.Status != 200 || !strings.Contains(p.Body, "Maria da Silva") {
			t.Fatalf("the message's link: %d", p.Status)
		}
		pe.ok(200, "POST", "/v1/debtors/maria/portal-link", obj{"action": "revoke"})
		if body := send(); !strings.HasPrefix(body, "Maria, veja o que está em aberto: \n") || strings.Contains(body, "/v1/portal/") {
			t.Fatalf("revoked: %q", body)
		}
	})
}
