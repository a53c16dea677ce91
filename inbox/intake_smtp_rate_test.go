package inbox

import (
	"context"
	"net/smtp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/ratelimit"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// TestSMTPIntakeUnderTheOrganizationRate: each SMTP recipient is one write
// of its organization, on the allowance its API calls and HTTP intake use.
// Over it, the recipient is refused for now (450 4.2.1: the sender keeps
// the message and retries) and nothing is stored; another organization's
// mail is taken all the while.
func TestSMTPIntakeUnderTheOrganizationRate(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		lots := ratelimit.MustParseRate("1000-H")
		limits := ratelimit.NewLimiter(ratelimit.NewMemoryStore(), "inbox", ratelimit.Rates{
			Reads: lots, Writes: lots, OrgReads: lots, OrgWrites: ratelimit.MustParseRate("3-H"),
		}, nil)
		e := &testEnv{producttest.Start(t, db, Spec(Config{SMTPAddr: "off"}), producttest.Options{RateLimits: limits})}
		s := &service{db: e.DB, accounts: e.Acc, jobs: e.Jobs, cfg: Config{SMTPAddr: "127.0.0.1:0"}.withDefaults(), limits: limits}
		s.hooks = webhooks.New(e.DB, e.Jobs, webhooks.Config{Product: "inbox"})
		addr := startMailServer(t, s).addr().String()

		// One write each: the inbox's creation.
		ours := mailInbox(t, e, e.Owner, "contas@inbox.localhost", nil)
		theirs := mailInbox(t, e, e.Other, "deles@inbox.localhost", nil)

		for _, f := range []string{"latin1.eml", "html_only.eml"} {
			if err := smtpSend(t, addr, "a@sender.example", []string{"contas@inbox.localhost"}, mailFixture(t, f)); err != nil {
				t.Fatalf("%s, within the rate: %v", f, err)
			}
		}
		err := smtpSend(t, addr, "a@sender.example", []string{"contas@inbox.localhost"}, mailFixture(t, "nested_related.eml"))
		if smtpCode(err) != 450 || !strings.Contains(err.Error(), "4.2.1") {
			t.Fatalf("the fourth write of the organization: %v, want 450 4.2.1", err)
		}
		// The other organization's allowance is its own.
		if err := smtpSend(t, addr, "a@sender.example", []string{"deles@inbox.localhost"}, mailFixture(t, "nested_related.eml")); err != nil {
			t.Fatalf("another organization's mail: %v", err)
		}
		// One recipient over the rate does not refuse the message to the
		// others.
		c, err := smtp.Dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Mail("a@sender.example"); err != nil {
			t.Fatal(err)
		}
		if err := c.Rcpt("contas@inbox.localhost"); smtpCode(err) != 450 {
			t.Fatalf("our recipient of a message to both: %v, want 450", err)
		}
		if err := c.Rcpt("deles@inbox.localhost"); err != nil {
			t.Fatalf("their recipient of a message to both: %v", err)
		}
		w, err := c.Data()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(mailFixture(t, "forwarded_inline.eml")); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("the message to both, for their recipient: %v", err)
		}
		_ = c.Quit()
		// The HTTP intake spends the same allowance.
		if code, body := httpDeliver(e, e.Owner, "?to=contas@inbox.localhost", mailFixture(t, "forwarded_rfc822.eml")); code != 429 {
			t.Fatalf("HTTP intake over the organization's rate: %d %s", code, body)
		}

		count := func(inbox string) int {
			var n int
			if err := db.Get(context.Background(), &n, `SELECT COUNT(*) FROM emails WHERE inbox_id = ?`, inbox); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if got := count(ours); got != 2 {
			t.Errorf("our inbox holds %d e-mails, want the 2 taken", got)
		}
		if got := count(theirs); got != 2 {
			t.Errorf("their inbox holds %d e-mails, want 2", got)
		}
	})
}
