package dunning

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// pixIn is the Pix code of a text: the BR Code that starts at its
// "000201", read by the project's decoder (brazil.ReadPix).
func pixIn(t testing.TB, text string) brazil.Pix {
	t.Helper()
	r := []rune(text)
	i := strings.Index(text, brazil.PixStart)
	if i < 0 {
		t.Fatalf("no Pix code in %q", text)
	}
	end, p, err := brazil.ReadPix(r, len([]rune(text[:i])))
	if end == 0 || err != nil {
		t.Fatalf("the Pix code in %q does not read: %v", text, err)
	}
	return p
}

// mimePart is a leaf part of a message: its type, Content-ID and decoded
// body.
type mimePart struct {
	Type, ContentID string
	Body            []byte
}

// mimeLeaves are the leaf parts of a raw message and the multipart types
// they sit in.
func mimeLeaves(t testing.TB, raw string) (leaves []mimePart, multiparts []string) {
	t.Helper()
	m, err := netmail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(ct, enc, cid string, body io.Reader)
	walk = func(ct, enc, cid string, body io.Reader) {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(mt, "multipart/") {
			multiparts = append(multiparts, mt)
			mr := multipart.NewReader(body, params["boundary"])
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				walk(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p.Header.Get("Content-Id"), p)
			}
		}
		data, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		if enc == "base64" {
			if data, err = base64.StdEncoding.DecodeString(string(bytes.Join(bytes.Fields(data), nil))); err != nil {
				t.Fatal(err)
			}
		}
		leaves = append(leaves, mimePart{Type: mt, ContentID: cid, Body: data})
	}
	walk(m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), "", m.Body)
	return leaves, multiparts
}

// TestPixInEveryReminder (issue 26, "done when"): an e-mail reminder of an
// overdue charge sent through the SMTP relay carries a Pix code that the
// decoder reads back with the charge's updated amount of that day, fine
// and interest included, the charge's txid and the creditor's key; its QR
// comes inline (multipart/related, cid:) and reads back as the same code;
// the signed QR link serves the same PNG and a tampered one nothing;
// WhatsApp carries the copia e cola; the preview shows each step's code
// with that step's day's amount, and before the creditor has a Pix key
// the variables render empty with a notice.
func TestPixInEveryReminder(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		relay := &ntRelay{}
		ne := startNotify(t, db, ledger.ChannelConfig{SMTP: ntStartRelay(t, relay)}, coreStart)
		org := ne.Mine.ID
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{ledger.ChannelEmail: {Enabled: true, Provider: ledger.ProviderSMTP}}, 0)
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Maria da Silva", Emails: []string{"maria@example.com"}, Phones: []string{"+5511987654321"}})
		// Due 10 February, 28 days late on 10 March: R$ 1.234,56 with 2 % and 1 % a month.
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, ExternalID: "cota-fev", Due: "2026-02-10", Amount: 123456, Fine: 20000, Interest: 10000})
		txid, err := ledger.PixTxID(charge)
		if err != nil {
			t.Fatal(err)
		}
		const body = "Olá {{debtor.name}}, devido hoje {{charge.updated_amount}}.\nPix copia e cola: {{pix.copia_e_cola}}\nQR Code: {{pix.qr_url}}"

		// A plan with two e-mail steps, 3 and 20 days after the due date
		// of a charge due in the future: each message's code asks that
		// day's amount.
		seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, ExternalID: "cota-abr", Due: "2026-04-10", Amount: 100000, Fine: 20000, Interest: 10000})
		p := ne.createPlan("Régua com Pix")
		ne.addStep(p.ID, map[string]any{"offset_days": 3, "send_time": "09:00", "channel": "email", "subject": "Fatura em atraso", "template": body})
		ne.addStep(p.ID, map[string]any{"offset_days": 20, "send_time": "09:00", "channel": "email", "subject": "Fatura em atraso", "template": body})
		preview := func() collection.PreviewJSON {
			return planData[collection.PreviewJSON](t, ne.must(ne.Viewer, 200, "POST", enrollPath("cota-abr", p.ID)+"/preview", nil))
		}

		// No Pix key yet: the variables render empty, with a notice.
		out := preview()
		for _, s := range out.Steps {
			if s.Pix != nil || len(s.Notices) != 1 || s.Notices[0] != collection.NoticeNoPixKey || s.Message == nil ||
				!strings.Contains(*s.Message, "Pix copia e cola: \nQR Code: ") || s.Outcome != "send" {
				t.Fatalf("without a key: %+v", s)
			}
		}

		// The tool: no Pix code without a key.
		if _, msg := ne.fails(ne.Viewer, 422, "UNPROCESSABLE", "GET", "/v1/charges/cota-fev/pix", nil); !strings.Contains(msg, "no Pix key") {
			t.Fatalf("without a key: %q", msg)
		}

		ne.ok(200, "PUT", "/v1/settings/creditor", obj{"legal_name": "Condomínio Edifício Açaí", "document": cnpjOK,
			"address": obj{"city": "São Paulo", "state": "SP"}, "pix_key": "cobranca@acai.example"})

		out = preview()
		var amounts []money.Cents
		for _, s := range out.Steps {
			if s.Pix == nil || len(s.Notices) != 0 || s.Message == nil {
				t.Fatalf("with a key: %+v", s)
			}
			code := pixIn(t, *s.Message)
			if code.Payload != s.Pix.Payload || money.Cents(code.AmountCents) != s.Amounts.UpdatedAmount || s.Pix.Amount != s.Amounts.UpdatedAmount ||
				s.Pix.On != s.RunDate || code.TxID != s.Pix.TxID || code.Key != "cobranca@acai.example" || code.MerchantName != "CONDOMINIO EDIFICIO ACAI" ||
				code.MerchantCity != "SAO PAULO" || !strings.Contains(*s.Message, "QR Code: "+s.Pix.QRURL) || !strings.HasPrefix(s.Pix.QRURL, ntLinkBase+"/v1/pix-qr/") {
				t.Fatalf("step %d: code %+v, step %+v", s.Position, code, s)
			}
			amounts = append(amounts, s.Amounts.UpdatedAmount)
		}
		// 3 days late: 100000 + 2000 fine + 100; 20 days: + 667 interest.
		if len(amounts) != 2 || amounts[0] != 102100 || amounts[1] != 102667 {
			t.Fatalf("the steps' amounts %v", amounts)
		}

		// The e-mail through the relay.
		code, resp := ne.Do(ne.Owner, "POST", "/v1/charges/cota-fev/notify", map[string]any{"subject": "Cota de fevereiro", "body": body})
		n := data[ntView](t, code, resp, 202)
		waitNotification(t, db, n.ID, notify.NotificationSent)
		chargeNow := ne.ok(200, "GET", "/v1/charges/cota-fev", nil)
		updated := money.Cents(int64(num(chargeNow, "updated_amount")*100 + 0.5))
		if updated != 123456+2469+1152 {
			t.Fatalf("the charge's updated amount today: %v", chargeNow)
		}
		msgs := relay.messages()
		if len(msgs) != 1 {
			t.Fatalf("the relay got %d messages", len(msgs))
		}
		leaves, multiparts := mimeLeaves(t, msgs[0].Data)
		var text, html string
		var qr []byte
		for _, l := range leaves {
			switch {
			case l.Type == "text/plain":
				text = string(l.Body)
			case l.Type == "text/html":
				html = string(l.Body)
			case l.Type == "image/png" && l.ContentID == "<pix-qr>":
				qr = l.Body
			}
		}
		if !strings.Contains(strings.Join(multiparts, ","), "multipart/related") || qr == nil {
			t.Fatalf("no inline QR (parts %v, %d leaves):\n%s", multiparts, len(leaves), msgs[0].Data)
		}
		got := pixIn(t, text)
		if money.Cents(got.AmountCents) != updated || got.TxID != txid || got.Key != "cobranca@acai.example" {
			t.Fatalf("the e-mail's code %+v, want %s with txid %s", got, updated, txid)
		}
		if braziltest.ReadQR(t, qr) != got.Payload {
			t.Fatal("the inline QR is not the e-mail's code")
		}
		if !strings.Contains(html, `src="cid:pix-qr"`) || strings.Contains(html, `src="http`) {
			t.Fatalf("the HTML does not show the QR inline:\n%s", html)
		}

		// The QR link serves the same code; a changed one nothing.
		link := text[strings.Index(text, ntLinkBase+"/v1/pix-qr/"):]
		link = strings.Fields(link)[0]
		path := strings.TrimPrefix(link, ntLinkBase)
		status, h, img := ne.DoFull("", "GET", path, nil)
		if status != 200 || h.Get("Content-Type") != "image/png" || braziltest.ReadQR(t, []byte(img)) != got.Payload {
			t.Fatalf("QR link: %d %q", status, h.Get("Content-Type"))
		}
		if status, _, _ := ne.DoFull("", "GET", path[:len(path)-3]+"AAA", nil); status != 404 {
			t.Errorf("tampered QR link: %d", status)
		}

		// The tool gives today's code: the same as the e-mail's; another
		// organization's charge is not found.
		tool := ne.ok(200, "GET", "/v1/charges/cota-fev/pix", nil)
		if tool["payload"] != got.Payload || tool["txid"] != txid || tool["charge_id"] != charge || tool["on"] != "2026-03-10" ||
			money.Cents(int64(num(tool, "amount")*100+0.5)) != updated || !strings.HasPrefix(tool["qr_url"].(string), ntLinkBase+"/v1/pix-qr/") ||
			tool["receiver"].(obj)["key_type"] != "email" {
			t.Fatalf("dunning_charges_pix: %v", tool)
		}
		ne.fails(ne.Other, 404, "NOT_FOUND", "GET", "/v1/charges/"+charge+"/pix", nil)
		// The resource reads the same code through the route.
		if res := ne.readResource("kobana://dunning/charges/cota-fev/pix"); !strings.Contains(res, tool["payload"].(string)) || !strings.Contains(res, `"txid": "`+txid+`"`) {
			t.Fatalf("kobana://dunning/charges/cota-fev/pix: %s", res)
		}
		if res := ne.RPC(ne.Other, "resources/read", obj{"uri": "kobana://dunning/charges/" + charge + "/pix"}); !strings.Contains(res, `"error"`) {
			t.Fatalf("another organization read the Pix resource: %s", res)
		}

		// The boleto's digitable line, formatted, beside the Pix code.
		ne.ok(200, "PATCH", "/v1/charges/cota-fev", obj{"barcode": braziltest.ItauBarcode})
		code, resp = ne.Do(ne.Owner, "POST", "/v1/charges/cota-fev/notify", map[string]any{"body": "Boleto: {{charge.linha_digitavel}}"})
		if b := data[ntView](t, code, resp, 202).Body; !strings.HasPrefix(b, "Boleto: "+braziltest.ItauLine+"\n") {
			t.Fatalf("linha digitável: %q", b)
		}

		// SMS and WhatsApp carry the copia e cola.
		ntSettings(t, db, org, map[string]ledger.ChannelSetting{ledger.ChannelEmail: {Enabled: true, Provider: ledger.ProviderSMTP},
			ledger.ChannelWhatsApp: {Enabled: true, Provider: ledger.ProviderOutbox}, ledger.ChannelSMS: {Enabled: true, Provider: ledger.ProviderOutbox}}, 0)
		for _, channel := range []string{"whatsapp", "sms"} {
			code, resp = ne.Do(ne.Owner, "POST", "/v1/charges/cota-fev/notify", map[string]any{"channel": channel, "body": "Pix: {{pix.copia_e_cola}}"})
			msg := data[ntView](t, code, resp, 202)
			if p := pixIn(t, msg.Body); money.Cents(p.AmountCents) != updated || p.TxID != txid || msg.Channel != channel {
				t.Fatalf("%s's code %+v", channel, p)
			}
		}

		// The default reminder carries the code too (WhatsApp's here; the
		// e-mail's above used a template).
		code, resp = ne.Do(ne.Owner, "POST", "/v1/charges/cota-fev/notify", map[string]any{"channel": "whatsapp"})
		if p := pixIn(t, data[ntView](t, code, resp, 202).Body); money.Cents(p.AmountCents) != updated || p.TxID != txid {
			t.Fatalf("the default WhatsApp reminder's code %+v", p)
		}

		// Another day, another amount: the preview's message of the day.
		ne.clock.Set(coreStart.Add(5 * 24 * time.Hour))
		code, resp = ne.Do(ne.Owner, "POST", "/v1/charges/cota-fev/notify", map[string]any{"channel": "whatsapp", "body": "Pix: {{pix.copia_e_cola}}"})
		later := data[ntView](t, code, resp, 202)
		if p := pixIn(t, later.Body); money.Cents(p.AmountCents) <= updated || p.TxID != txid {
			t.Fatalf("five days later the code asks %d (was %s)", p.AmountCents, updated)
		} else if tool := ne.ok(200, "GET", "/v1/charges/cota-fev/pix", nil); tool["payload"] != p.Payload || tool["on"] != "2026-03-15" {
			t.Fatalf("the tool five days later: %v, the message's %s", tool, p.Payload)
		}
	})
}
