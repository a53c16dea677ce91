package dunning

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/bureau"
	"github.com/kobana/kobana-mcp/platform/store"
)

// escEnv is the core harness with its own provider: a bureau.Fake on a
// loopback listener of the test process, reached over HTTP by the
// product's real client, with fast retries.
type escEnv struct {
	*coreEnv
	fake   *bureau.Fake
	secret []byte
	svc    *service
}

func newEscEnv(t *testing.T, db *store.DB, timeout time.Duration) *escEnv {
	t.Helper()
	secret := []byte("a shared secret of the test bureau")
	fake := bureau.NewFake(secret)
	base, err := fake.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fake.Close() })
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	ee := &escEnv{fake: fake, secret: secret}
	ee.coreEnv = newCoreEnvWith(t, db, func(s *service) {
		if s.db != nil {
			ee.svc = s
		}
		s.bureaus = bureauSetup{provider: bureau.NewClient(base, timeout), secret: secret, retryBase: 10 * time.Millisecond}
	})
	return ee
}

// overdueCharge creates a debtor and a charge already overdue at
// coreStart (due 20 February 2026) and answers the charge's id.
func (ee *escEnv) overdueCharge(ext string, amount float64) string {
	ee.t.Helper()
	ee.debtor("maria", "Maria da Silva", cpfOK)
	c := ee.charge(obj{"debtor_id": "maria", "external_id": ext, "amount": amount, "due_date": "2026-02-20", "description": "Mensalidade"})
	if c["status"] != "overdue" {
		ee.t.Fatalf("charge %v", c)
	}
	return c["id"].(string)
}

// priorNotice sends the charge's prior notice (by e-mail, the outbox) and
// waits until it is sent.
func (ee *escEnv) priorNotice(ext string) {
	ee.t.Helper()
	n := ee.ok(202, "POST", "/v1/charges/"+ext+"/notify", obj{"kind": "prior_notice"})
	id := n["id"].(string)
	ee.eventually("the prior notice sent", func() bool {
		var st string
		_ = ee.DB.Get(context.Background(), &st, `SELECT status FROM dunning_notifications WHERE id = ?`, id)
		return st == NotificationSent
	})
}

// eventually polls cond for up to 15 s.
func (ee *escEnv) eventually(what string, cond func() bool) {
	ee.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			ee.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// commandStatus is a command's status in the database.
func (ee *escEnv) commandStatus(id string) string {
	var st string
	if err := ee.DB.Get(context.Background(), &st, `SELECT status FROM dunning_commands WHERE id = ?`, id); err != nil {
		ee.t.Fatal(err)
	}
	return st
}

func (ee *escEnv) waitStatus(id, want string) {
	ee.t.Helper()
	ee.eventually("command "+id+" "+want, func() bool { return ee.commandStatus(id) == want })
}

// refused wants a 422 whose message names rule.
func (ee *escEnv) refused(method, path string, body any, rule string) string {
	ee.t.Helper()
	_, msg := ee.fails(ee.Owner, 422, "UNPROCESSABLE", method, path, body)
	if !strings.Contains(msg, "rule "+rule+":") {
		ee.t.Fatalf("%s %s: %q does not name rule %s", method, path, msg, rule)
	}
	return msg
}
