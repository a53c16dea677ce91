package portal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/platform/pagetext/pagetexttest"
)

// TestTemplatesHoldNoWords: every word a debtor reads on the page comes
// from the catalogue (platform/pagetext) or from data.
func TestTemplatesHoldNoWords(t *testing.T) {
	t.Parallel()
	raw, err := pagetexttest.RawText(templateFiles, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		t.Errorf("words written in a template instead of the catalogue: %s", r)
	}
}

// TestPageInOneLanguage renders the page with every part shown, and the
// neutral message, in both languages: each names its language and holds
// none of the other's messages.
func TestPageInOneLanguage(t *testing.T) {
	t.Parallel()
	for _, l := range []*pagetext.Printer{pagetext.In(pagetext.PortugueseBR), pagetext.In(pagetext.English)} {
		full := &view{Kind: "page", L: l, Assets: assetsPath, Link: "/v1/portal/x", Creditor: creditorView{Name: "Escola", Document: "11.222.333/0001-81", Address: "Rua A, 1"},
			DebtorName: "Maria", Today: "10/03/2026", Accepted: true, Changed: true,
			Charges:  []chargeView{{ID: "c1", Index: 1, DueDate: "20/02/2026", DaysLate: 18, Open: "R$ 1,00", Fine: "R$ 0,02", Interest: "R$ 0,01", Updated: "R$ 1,03", Pix: "000201", QRPath: "/q", Line: "1234"}},
			Offers:   []offerView{{Installments: 2, Value: "2:103", Total: "R$ 1,03", Discount: "R$ 0,01", HasDiscount: true, Parts: []partView{{1, "R$ 0,52", "20/03/2026"}, {2, "R$ 0,51", "20/04/2026"}}}},
			Payments: []paymentView{{Date: "01/03/2026", What: "x", Amount: "R$ 1,00"}},
			Channels: []channelView{{Channel: "email", Word: l.Say("portal.channel.email")}, {Channel: "sms", Word: l.Say("portal.channel.sms"), Stopped: true}}}
		empty := &view{Kind: "page", L: l, Assets: assetsPath, Link: "/v1/portal/x", Creditor: creditorView{Name: "Escola"}, DebtorName: "Maria"}
		msg := &view{Kind: "message", L: l, Assets: assetsPath, TitleKey: "portal.unavailable_title", TextKey: "portal.unavailable"}
		for _, v := range []*view{full, empty, msg} {
			var buf bytes.Buffer
			if err := templates.ExecuteTemplate(&buf, v.Kind, v); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			if got := pagetexttest.Lang(page); got != l.Lang() {
				t.Errorf("lang %q, want %q", got, l.Lang())
			}
			for _, w := range pagetexttest.OtherLanguage(pagetexttest.Visible(page), l.Tag()) {
				if !strings.Contains(w, "CNPJ") && !strings.Contains(w, "SMS") && !strings.Contains(w, "WhatsApp") {
					t.Errorf("%s page holds %q of the other language", l.Lang(), w)
				}
			}
		}
	}
}
