package dunning

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/pixpsptest"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// pixPaidAt is when the tests' Pix were paid: half an hour before the
// clock's start (coreStart, noon in Brasília).
const pixPaidAt = "2026-03-10T14:30:00.000Z"

// pixWebhook creates the organization's Pix webhook and answers a PSP
// calling its secret URL, retrying a refused call up to three times.
func (e *dunEnv) pixWebhook() *pixpsptest.PSP {
	e.t.Helper()
	hook := e.ok(200, "POST", "/v1/settings/pix-webhook/rotate", nil)
	url, _ := hook["secret_url"].(string)
	if url != e.URL+"/v1/pix-webhooks/"+hook["id"].(string)+"?secret="+hook["secret"].(string) || len(hook["secret"].(string)) != 43 {
		e.t.Fatalf("webhook: %v", hook)
	}
	return &pixpsptest.PSP{URL: url, Attempts: 3, Backoff: 5 * time.Millisecond}
}

// pixOf is a Pix paying amount (a decimal string) to the charge id, the
// seq-th of the test.
func pixOf(t testing.TB, chargeID, valor string, seq int) pixpsptest.Pix {
	t.Helper()
	txid := ""
	if chargeID != "" {
		var err error
		if txid, err = ledger.PixTxID(chargeID); err != nil {
			t.Fatal(err)
		}
	}
	at, _ := time.Parse(time.RFC3339, pixPaidAt)
	return pixpsptest.Pix{EndToEndID: pixpsptest.EndToEndID("00360305", at, seq), TxID: txid, Valor: valor, Horario: pixPaidAt, InfoPagador: "pagamento"}
}

// updatedValor is the charge's updated amount as the API Pix writes it.
func (e *dunEnv) updatedValor(id string) (string, obj) {
	e.t.Helper()
	c := e.ok(200, "GET", "/v1/charges/"+id, nil)
	return fmt.Sprintf("%.2f", num(c, "updated_amount")), c
}

// pixRows counts the organization's Pix received and its payments.
func pixRows(t testing.TB, db *store.DB, orgID string) (pix, payments int) {
	t.Helper()
	ctx := context.Background()
	if err := db.Get(ctx, &pix, `SELECT COUNT(*) FROM dunning_pix_received WHERE organization_id = ?`, orgID); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(ctx, &payments, `SELECT COUNT(*) FROM dunning_payments WHERE organization_id = ?`, orgID); err != nil {
		t.Fatal(err)
	}
	return pix, payments
}

// TestPixWebhookReconciles: a Pix whose txid names an overdue charge and
// whose valor is its updated amount pays it through the one payment path
// — interest, then fine, then principal; method pix, the endToEndId as
// reference, recorded by the webhook, dunning.payment.recorded and
// dunning.charge.paid; a Pix above what its charge owes pays it and keeps
// the excess, listed and reported by dunning.pix.unmatched; a Pix of an
// unknown txid, of another organization's charge or of a paid charge is
// kept whole; a person assigns part of one to a charge (a payment, once:
// more than waits is refused), dismisses the rest, and can do neither
// again; another organization sees none of it (404).
func TestPixWebhookReconciles(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		ctx := context.Background()
		psp := fe.pixWebhook()
		fe.debtor("maria", "Maria da Silva", cpfOK)
		c1 := fe.charge(obj{"debtor_id": "maria", "external_id": "pix-1", "amount": 1000, "due_date": "2026-02-10",
			"fine_percent": 2, "interest_percent": 1, "description": "Fevereiro"})["id"].(string)
		valor, before := fe.updatedValor(c1)
		r, err := psp.Notify(ctx, pixOf(t, c1, valor, 1))
		if err != nil || r.Status != 200 || !strings.Contains(r.Body, `"reconciled":1`) {
			t.Fatalf("matched pix: %+v %v", r, err)
		}
		after := fe.ok(200, "GET", "/v1/charges/"+c1, nil)
		if after["status"] != "paid" || num(after, "updated_amount") != 0 {
			t.Fatalf("charge after its pix: %v", after)
		}
		var pay struct {
			Amount    int64  `db:"amount_cents"`
			Method    string `db:"method"`
			Reference string `db:"reference"`
			CreatedBy string `db:"created_by"`
			Interest  int64  `db:"applied_interest_cents"`
			Fine      int64  `db:"applied_fine_cents"`
			Principal int64  `db:"applied_principal_cents"`
			PaidAt    time.Time
		}
		if err := db.Get(ctx, &pay, `SELECT amount_cents, method, reference, created_by, applied_interest_cents, applied_fine_cents, applied_principal_cents
			FROM dunning_payments WHERE charge_id = ?`, c1); err != nil {
			t.Fatal(err)
		}
		cents := func(f float64) int64 { c, _ := money.FromFloat(f); return int64(c) }
		if pay.Amount != cents(num(before, "updated_amount")) || pay.Method != "pix" || pay.Reference != pixOf(t, c1, valor, 1).EndToEndID ||
			pay.CreatedBy != "client:"+ledger.PixWebhookClient || pay.Interest != cents(num(before, "interest_amount")) ||
			pay.Fine != cents(num(before, "fine_amount")) || pay.Principal != 100000 || pay.Interest == 0 || pay.Fine == 0 {
			t.Fatalf("payment %+v of charge %v", pay, before)
		}
		if ev := strings.Join(fe.events(c1), ","); !strings.Contains(ev, ledger.EventPaymentRecorded+","+ledger.EventChargePaid) {
			t.Fatalf("events: %s", ev)
		}

		// The excess above the updated amount is kept, listed, reported.
		fe.charge(obj{"debtor_id": "maria", "external_id": "pix-2", "amount": 250, "due_date": "2026-04-10", "description": "Abril"})
		c2 := fe.ok(200, "GET", "/v1/charges/pix-2", nil)["id"].(string)
		r, err = psp.Notify(ctx, pixOf(t, c2, "260.05", 2))
		if err != nil || r.Status != 200 || !strings.Contains(r.Body, `"kept_for_assignment":1`) {
			t.Fatalf("pix with excess: %+v %v", r, err)
		}
		if c := fe.ok(200, "GET", "/v1/charges/pix-2", nil); c["status"] != "paid" {
			t.Fatalf("charge paid by a pix with excess: %v", c)
		}
		list := fe.ok200list("/v1/pix-received")
		if len(list) != 1 || list[0]["status"] != ledger.PixExcess || num(list[0], "unassigned_amount") != 10.05 || num(list[0], "applied_amount") != 250 ||
			list[0]["charge_id"] != c2 || list[0]["reason"] != ledger.PixReasonExcess {
			t.Fatalf("waiting after the excess: %v", list)
		}
		excessID := list[0]["id"].(string)
		if ev := fe.events(excessID); len(ev) != 1 || ev[0] != ledger.EventPixUnmatched {
			t.Fatalf("excess events: %v", ev)
		}

		// Unmatched: an unknown txid, another organization's charge, a
		// paid charge, no txid at all — each kept whole.
		code, out := fe.call(fe.Other, "PUT", "/v1/debtors/ana", obj{"name": "Ana", "document": cpfOK})
		if code != 201 {
			t.Fatalf("their debtor: %d %v", code, out)
		}
		code, out = fe.call(fe.Other, "POST", "/v1/charges", obj{"debtor_id": "ana", "amount": 50, "due_date": "2026-04-10"})
		if code != 201 {
			t.Fatalf("their charge: %d %v", code, out)
		}
		theirs := out["data"].(obj)["id"].(string)
		unknown := pixOf(t, "", "40.00", 3)
		unknown.TxID = "PEDIDO12345" // a txid Dunning did not write
		noTxID := pixOf(t, "", "1.00", 6)
		r, err = psp.Notify(ctx, unknown, pixOf(t, theirs, "50.00", 4), pixOf(t, c1, "5.00", 5), noTxID)
		if err != nil || r.Status != 200 || !strings.Contains(r.Body, `"kept_for_assignment":4`) {
			t.Fatalf("unmatched pix: %+v %v", r, err)
		}
		reasons := map[string]string{}
		ids := map[string]string{}
		for _, p := range fe.ok200list("/v1/pix-received") {
			reasons[p["end_to_end_id"].(string)] = p["reason"].(string)
			ids[p["end_to_end_id"].(string)] = p["id"].(string)
			if p["status"] != ledger.PixExcess && (p["status"] != ledger.PixUnmatched || num(p, "applied_amount") != 0) {
				t.Fatalf("unmatched pix: %v", p)
			}
		}
		if reasons[unknown.EndToEndID] != ledger.PixReasonTxIDUnknown || reasons[pixOf(t, theirs, "", 4).EndToEndID] != ledger.PixReasonChargeNotFound ||
			reasons[pixOf(t, c1, "", 5).EndToEndID] != ledger.PixReasonChargeNotPayable || reasons[noTxID.EndToEndID] != ledger.PixReasonNoTxID || len(reasons) != 5 {
			t.Fatalf("reasons: %v", reasons)
		}
		if _, n := pixRows(t, db, fe.Theirs.ID); n != 0 {
			t.Fatalf("their charge got a payment from our PSP: %d", n)
		}

		// A person assigns part of the unknown one to a new charge, then
		// cannot assign more than waits, dismisses the rest, and cannot
		// assign or dismiss it again.
		fe.charge(obj{"debtor_id": "maria", "external_id": "pix-3", "amount": 100, "due_date": "2026-04-10"})
		u := ids[unknown.EndToEndID]
		assign := "/v1/pix-received/" + u + "/assign"
		fe.fails(fe.Viewer, 403, "FORBIDDEN", "POST", assign, obj{"charge_id": "pix-3"})
		fe.fails(fe.Other, 404, "NOT_FOUND", "POST", assign, obj{"charge_id": "pix-3"})
		fe.fails(fe.Owner, 404, "NOT_FOUND", "POST", assign, obj{"charge_id": theirs})
		fields, _ := fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", assign, obj{"charge_id": "pix-3", "amount": 40.01})
		wantFields(t, fields, "amount")
		got := fe.ok(200, "POST", assign, obj{"charge_id": "pix-3", "amount": 30, "note": "o pagador avisou por e-mail"})
		if p := got["pix"].(obj); num(p, "unassigned_amount") != 10 || num(p, "applied_amount") != 30 || p["status"] != ledger.PixUnmatched ||
			got["payment"].(obj)["charge"].(obj)["status"] != "pending" || num(got["payment"].(obj)["charge"].(obj), "updated_amount") != 70 ||
			got["payment"].(obj)["created_by"] != fe.Owner.ID || got["payment"].(obj)["reference"] != unknown.EndToEndID {
			t.Fatalf("assigned: %v", got)
		}
		fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", assign, obj{"charge_id": "pix-3", "amount": 30})
		fe.fails(fe.Member, 403, "FORBIDDEN", "POST", "/v1/pix-received/"+u+"/dismiss", obj{"reason": "devolvido"})
		d := fe.ok(200, "POST", "/v1/pix-received/"+u+"/dismiss", obj{"reason": "devolvido ao pagador pelo banco"})
		if d["status"] != ledger.PixDismissed || num(d, "dismissed_amount") != 10 || num(d, "unassigned_amount") != 0 {
			t.Fatalf("dismissed: %v", d)
		}
		fe.fails(fe.Owner, 409, "CONFLICT", "POST", assign, obj{"charge_id": "pix-3"})
		fe.fails(fe.Owner, 409, "CONFLICT", "POST", "/v1/pix-received/"+u+"/dismiss", obj{"reason": "again"})
		// The excess assigned whole to pix-3: a payment, the Pix done.
		got = fe.ok(200, "POST", "/v1/pix-received/"+excessID+"/assign", obj{"charge_id": "pix-3"})
		if p := got["pix"].(obj); p["status"] != ledger.PixAssigned || num(p, "unassigned_amount") != 0 || num(got["payment"].(obj)["charge"].(obj), "updated_amount") != 59.95 {
			t.Fatalf("excess assigned: %v", got)
		}
		if n := len(fe.ok200list("/v1/pix-received")); n != 3 {
			t.Fatalf("still waiting: %d, want 3", n)
		}
		if n := len(fe.ok200list("/v1/pix-received?all=true")); n != 6 {
			t.Fatalf("all: %d, want 6", n)
		}
		if code, out := fe.call(fe.Other, "GET", "/v1/pix-received?all=true", nil); code != 200 || len(out["data"].([]any)) != 0 {
			t.Fatalf("another organization lists our pix: %d %v", code, out)
		}
		// A PSP that appends /pix to the URL's path (the query kept) is
		// heard the same; no secret is not.
		if code, text, err := postRaw(ctx, strings.Replace(psp.URL, "?secret=", "/pix?secret=", 1), pixpsptest.Body(pixOf(t, c2, "260.05", 2))); err != nil || code != 200 ||
			!strings.Contains(text, `"duplicates":1`) {
			t.Fatalf("path form: %d %s %v", code, text, err)
		}
		if code, _, err := postRaw(ctx, psp.URL[:strings.Index(psp.URL, "?")]+"/pix", pixpsptest.Body(pixOf(t, c2, "260.05", 2))); err != nil || code != 401 {
			t.Fatalf("no secret: %d %v", code, err)
		}
		// A replay of everything changes nothing.
		pixN, payN := pixRows(t, db, fe.Mine.ID)
		r, err = psp.Notify(ctx, pixOf(t, c1, valor, 1), pixOf(t, c2, "260.05", 2), unknown)
		if err != nil || r.Status != 200 || !strings.Contains(r.Body, `"duplicates":3`) {
			t.Fatalf("replay: %+v %v", r, err)
		}
		if p2, n2 := pixRows(t, db, fe.Mine.ID); p2 != pixN || n2 != payN {
			t.Fatalf("a replay wrote: pix %d→%d payments %d→%d", pixN, p2, payN, n2)
		}
	})
}

// ok200list is the data of a listing the owner reads.
func (e *dunEnv) ok200list(path string) []obj {
	e.t.Helper()
	code, out := e.call(e.Owner, "GET", path, nil)
	if code != 200 {
		e.t.Fatalf("GET %s: %d %v", path, code, out)
	}
	var list []obj
	for _, v := range out["data"].([]any) {
		list = append(list, v.(obj))
	}
	return list
}

// TestPixWebhookRefuses: a body that is not the API Pix's — not JSON,
// data after it, no pix array, a valor that is not a two-decimal string
// (a number, "12.3", Brazilian notation, zero), a malformed endToEndId, a
// horario in the future, NUL bytes, a body over 1 MB — is refused with a
// message naming the fault, a wrong secret or an unknown hook too, and
// nothing is kept or recorded; a rotated secret keeps working until its
// grace ends, the new one at once.
func TestPixWebhookRefuses(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		ctx := context.Background()
		psp := fe.pixWebhook()
		psp.Attempts = 1
		c := fe.overdueCharge("pix-bad", 100)
		good := pixOf(t, c, "10.00", 1)
		body := func(mut func(p *pixpsptest.Pix)) []byte {
			p := good
			mut(&p)
			return pixpsptest.Body(p)
		}
		for name, tc := range map[string]struct {
			body []byte
			want string
		}{
			"not json":         {[]byte(`pix=1`), "not a JSON object"},
			"after":            {append(pixpsptest.Body(good), []byte(` {}`)...), "data after"},
			"no pix":           {[]byte(`{"pagamentos":[]}`), "array, or an empty one"},
			"empty":            {[]byte(`{"pix":[]}`), "array, or an empty one"},
			"valor number":     {bytes.Replace(pixpsptest.Body(good), []byte(`"10.00"`), []byte(`10.00`), 1), "pix[0]"},
			"valor one digit":  {body(func(p *pixpsptest.Pix) { p.Valor = "12.3" }), "valor"},
			"valor BR":         {body(func(p *pixpsptest.Pix) { p.Valor = "1.234,56" }), "valor"},
			"valor zero":       {body(func(p *pixpsptest.Pix) { p.Valor = "0.00" }), "above zero"},
			"valor exponent":   {body(func(p *pixpsptest.Pix) { p.Valor = "1e3" }), "valor"},
			"e2e":              {body(func(p *pixpsptest.Pix) { p.EndToEndID = "E123" }), "endToEndId"},
			"txid":             {body(func(p *pixpsptest.Pix) { p.TxID = "KB-1" }), "txid"},
			"horario":          {body(func(p *pixpsptest.Pix) { p.Horario = "10/03/2026" }), "horario"},
			"future":           {body(func(p *pixpsptest.Pix) { p.Horario = "2026-03-11T12:00:00Z" }), "future"},
			"nul":              {body(func(p *pixpsptest.Pix) { p.InfoPagador = "a\x00b" }), "NUL"},
			"raw nul":          {append(pixpsptest.Body(good)[:10:10], 0), "NUL"},
			"bad utf8":         {[]byte("{\"pix\":[{\"infoPagador\":\"\xff\"}]}"), "UTF-8"},
			"second item bad":  {pixpsptest.Body(good, pixOf(t, c, "1,00", 2)), "pix[1]"},
			"payer note long":  {body(func(p *pixpsptest.Pix) { p.InfoPagador = strings.Repeat("a", 141) }), "infoPagador"},
			"oversize (1 MiB)": {append(pixpsptest.Body(good), bytes.Repeat([]byte(" "), 1<<20)...), "over 1048576 bytes"},
		} {
			r, err := psp.Send(ctx, tc.body)
			want := 400
			if strings.HasPrefix(name, "oversize") {
				want = 413
			}
			if err != nil || r.Status != want || !strings.Contains(r.Body, tc.want) {
				t.Errorf("%s: %+v %v, want %d naming %q", name, r, err, want, tc.want)
			}
		}
		wrong := *psp
		wrong.URL = psp.URL[:strings.Index(psp.URL, "?secret=")] + "?secret=not-the-secret"
		if r, err := wrong.Notify(ctx, good); err != nil || r.Status != 401 {
			t.Fatalf("wrong secret: %+v %v", r, err)
		}
		unknown := *psp
		unknown.URL = fe.URL + "/v1/pix-webhooks/6f1c1a53-6a43-4d0e-9a51-3f1f0f0f0f0f/x"
		if r, err := unknown.Notify(ctx, good); err != nil || r.Status != 404 {
			t.Fatalf("unknown hook: %+v %v", r, err)
		}
		if p, n := pixRows(t, db, fe.Mine.ID); p != 0 || n != 0 {
			t.Fatalf("refused calls kept %d pix and %d payments", p, n)
		}
		// Rotation: the old URL works for 24 hours, the new one at once.
		old := *psp
		fresh := fe.pixWebhook()
		if r, err := old.Notify(ctx, good); err != nil || r.Status != 200 {
			t.Fatalf("old secret within its grace: %+v %v", r, err)
		}
		fe.clock.Set(fe.clock.Now().Add(25 * time.Hour))
		if r, err := old.Notify(ctx, pixOf(t, c, "1.00", 3)); err != nil || r.Status != 401 {
			t.Fatalf("old secret after its grace: %+v %v", r, err)
		}
		if r, err := fresh.Notify(ctx, pixOf(t, c, "1.00", 3)); err != nil || r.Status != 200 {
			t.Fatalf("new secret: %+v %v", r, err)
		}
		if hook := fe.ok(200, "GET", "/v1/settings/pix-webhook", nil); !strings.HasSuffix(hook["secret_url"].(string), "?secret={secret}") || hook["secret"] != nil {
			t.Fatalf("the secret shows after its rotation: %v", hook)
		}
	})
}

// TestPixWebhookReplays: the same Pix sent 20 times at once (a PSP's
// retries, reaching any replica) is kept once and pays once: the UNIQUE
// constraint on the endToEndId decides, not a lock of this process.
func TestPixWebhookReplays(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		psp := fe.pixWebhook()
		psp.Attempts = 5
		c := fe.overdueCharge("pix-replay", 300)
		p := pixOf(t, c, "120.00", 1)
		var wg sync.WaitGroup
		results := make([]pixpsptest.Result, 20)
		errs := make([]error, 20)
		for i := range results {
			wg.Go(func() { results[i], errs[i] = psp.Notify(context.Background(), p) })
		}
		wg.Wait()
		reconciled := 0
		for i, r := range results {
			if errs[i] != nil || r.Status != 200 {
				t.Fatalf("replay %d: %+v %v", i, r, errs[i])
			}
			if strings.Contains(r.Body, `"reconciled":1`) {
				reconciled++
			}
		}
		pixN, payN := pixRows(t, db, fe.Mine.ID)
		if reconciled != 1 || pixN != 1 || payN != 1 {
			t.Fatalf("20 replays: %d reconciled, %d pix kept, %d payments", reconciled, pixN, payN)
		}
		if ch := fe.ok(200, "GET", "/v1/charges/"+c, nil); num(ch, "paid_amount") != 120 {
			t.Fatalf("paid once: %v", ch)
		}
	})
}

// postRaw posts body to url once, as a PSP would, and answers the status
// and the body.
func postRaw(ctx context.Context, url string, body []byte) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(text), err
}
