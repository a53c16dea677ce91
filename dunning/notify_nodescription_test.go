package dunning

import (
	"context"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestNotifyChargeWithoutDescription: the default reminder names only
// what the charge has, so a charge created without a description can be
// notified by e-mail and by SMS (before, both were 422 "no value for
// {{charge.description}}").
func TestNotifyChargeWithoutDescription(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ne := startNotify(t, db, ledger.ChannelConfig{}, ntMonday)
		org := ne.Mine.ID
		debtor := seedDebtor(t, db, debtorSeed{OrgID: org, Name: "Ana", Emails: []string{"ana@example.com"}, Phones: []string{"+5511987654321"}})
		charge := seedCharge(t, db, chargeSeed{OrgID: org, DebtorID: debtor, Amount: 1000, Due: "2026-03-10"})
		// The fixture gives every charge a description; this one has none,
		// as a charge created through the API without one.
		if _, err := db.Exec(context.Background(), `UPDATE dunning_charges SET description = '' WHERE id = ?`, charge); err != nil {
			t.Fatal(err)
		}
		code, body := ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{"channel": "email"})
		n := data[ntView](t, code, body, 202)
		if n.Subject == nil || *n.Subject != "Lembrete de pagamento de "+ne.Mine.Name {
			t.Errorf("subject %v", deref(n.Subject))
		}
		for _, want := range []string{"Olá, Ana.", "uma cobrança, vencimento em 10/03/2026", "R$ 10,00"} {
			if !strings.Contains(n.Body, want) {
				t.Errorf("e-mail body lacks %q:\n%s", want, n.Body)
			}
		}
		code, body = ne.Do(ne.Owner, "POST", "/v1/charges/"+charge+"/notify", map[string]any{"channel": "sms"})
		sms := data[ntView](t, code, body, 202)
		if !strings.Contains(sms.Body, "Ana, uma cobrança vence(u) em 10/03/2026") || strings.Contains(sms.Body, "{{") {
			t.Errorf("sms body %q", sms.Body)
		}
	})
}
