package dunning

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/bureau"
	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/dunning/regua"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// The one harness of Dunning's tests: Dunning on loopback over a real
// database (producttest), on one test clock that the service, the
// notifier, the step runner and the sweep all read, with users of every
// role in the first organization, the service and the notifier serving
// at hand, and, when asked, the deployment's channels and a credit
// bureau. The periodic jobs are left out: a test that moves the clock
// runs the step runner, the sweep and the monitors when it chooses.

// testWait bounds every wait of these tests: generous for a loaded CI
// machine, reached only when something is broken.
const testWait = 60 * time.Second

// testPoll is how often a wait reads the database again: often enough
// that a wait ends soon after its condition holds, seldom enough that
// parallel tests polling do not take the CPU from the work they wait for.
const testPoll = 20 * time.Millisecond

// ntLinkBase is the public URL the links of the tests carry: https, as
// List-Unsubscribe requires, while the listener serves http on loopback.
const ntLinkBase = "https://dunning.test"

// brasilia is the organizations' default zone.
var brasilia = func() *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		panic(err)
	}
	return loc
}()

// coreStart is noon of Tuesday 10 March 2026 in Brasília, a business day:
// the clock's start unless a test says otherwise.
var coreStart = time.Date(2026, 3, 10, 12, 0, 0, 0, brasilia)

// envOptions are what a test's Dunning differs in.
type envOptions struct {
	// start is the clock's first instant (zero: coreStart).
	start time.Time
	// channels are the deployment's channel providers (none: the outbox).
	channels ledger.ChannelConfig
	// bureau serves a bureau.Fake on loopback as the credit bureau,
	// reached over HTTP by the product's client with a timeout of
	// bureauTimeout (zero: 5 s) and fast retries.
	bureau        bool
	bureauTimeout time.Duration
	// runnerBatch replaces the step runner's batch when set (the scale
	// test's small run, dunning/regua's runner_slices.go).
	runnerBatch int
}

// dunEnv is one test's Dunning and what the test needs around it.
type dunEnv struct {
	*producttest.Env
	t      testing.TB
	clock  *producttest.Clock
	svc    *escalation.Service // the service serving (over the database)
	n      *regua.Notifier     // the notifier serving
	Viewer accounts.User
	Member accounts.User
	Admin  accounts.User
	// fake is the credit bureau, with the secret its callbacks are
	// signed with, when envOptions.bureau.
	fake   *bureau.Fake
	secret []byte
	// closed records every onChargeClosed call: charge id and reason.
	closedMu sync.Mutex
	closed   []string
}

// newEnv serves Dunning for one test until it ends.
func newEnv(t testing.TB, db *store.DB, o envOptions) *dunEnv {
	t.Helper()
	if o.start.IsZero() {
		o.start = coreStart
	}
	e := &dunEnv{t: t, clock: producttest.NewClock(o.start)}
	var bureaus ledger.BureauSetup
	if o.bureau {
		e.secret = []byte("a shared secret of the test bureau")
		e.fake = bureau.NewFake(e.secret)
		base, err := e.fake.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.fake.Close() })
		if o.bureauTimeout == 0 {
			o.bureauTimeout = 5 * time.Second
		}
		bureaus = ledger.BureauSetup{Provider: bureau.NewClient(base, o.bureauTimeout), Secret: e.secret, RetryBase: 10 * time.Millisecond}
	}
	cfg := o.channels
	cfg.LinkBase = ntLinkBase
	// The product is built more than once (its catalog and scopes are
	// built without a database): only the build over the database serves.
	var mu sync.Mutex
	spec := newSpec(&cfg, func(s *escalation.Service) {
		s.NoPeriodic = true
		s.Now = e.clock.Now
		if o.bureau {
			s.Bureaus = bureaus
		}
		s.WhenChargeClosed(func(_ context.Context, _ *store.Tx, c ledger.Charge, reason lifecycle.StopReason) error {
			e.closedMu.Lock()
			e.closed = append(e.closed, c.ID+":"+string(reason))
			e.closedMu.Unlock()
			return nil
		})
		if s.DB != nil {
			mu.Lock()
			e.svc = s
			mu.Unlock()
		}
	}, func(n *regua.Notifier) {
		n.RetryBase = 10 * time.Millisecond
		n.Periodic = false
		if o.runnerBatch > 0 {
			n.RunnerBatch = o.runnerBatch
		}
		if n.DB != nil {
			mu.Lock()
			e.n = n
			mu.Unlock()
		}
	})
	e.Env = producttest.Start(t, db, spec, producttest.Options{Webhooks: productkit.WebhookSettings{
		AllowPrivateTargets: true, Retries: []time.Duration{10 * time.Millisecond}}})
	if e.svc == nil || e.n == nil {
		t.Fatal("Dunning was not built over the database")
	}
	ctx := context.Background()
	for _, u := range []struct {
		dst  *accounts.User
		role identity.Role
	}{{&e.Viewer, identity.RoleViewer}, {&e.Member, identity.RoleMember}, {&e.Admin, identity.RoleAdmin}} {
		var err error
		*u.dst, err = e.Acc.CreateUser(ctx, accounts.NewUser{Email: string(u.role) + "@mine.example", Password: "a long enough password",
			OrganizationID: e.Mine.ID, Role: u.role})
		if err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// newCoreEnv is the default Dunning: the outbox, no bureau, coreStart.
func newCoreEnv(t testing.TB, db *store.DB) *dunEnv { return newEnv(t, db, envOptions{}) }

// newEscEnv is Dunning with a credit bureau whose client times out after
// timeout (zero: 5 s).
func newEscEnv(t testing.TB, db *store.DB, timeout time.Duration) *dunEnv {
	return newEnv(t, db, envOptions{bureau: true, bureauTimeout: timeout})
}

// startNotify is Dunning with the channels cfg, its clock at start.
func startNotify(t testing.TB, db *store.DB, cfg ledger.ChannelConfig, start time.Time) *dunEnv {
	return newEnv(t, db, envOptions{channels: cfg, start: start})
}

func (e *dunEnv) closedCalls() []string {
	e.closedMu.Lock()
	defer e.closedMu.Unlock()
	return append([]string(nil), e.closed...)
}

// secondQueue starts another working queue over the same database with
// the notifier's workers: a second worker process.
func (e *dunEnv) secondQueue(t testing.TB) *jobs.Queue {
	t.Helper()
	// On SQLite every poll of every queue takes the writer's lock: two
	// processes both polling four queues every 50 ms starved the sends'
	// own writes for over 30 s under -race on two cores (seen with the
	// failure log: SQLITE_BUSY on the call record, an outcome left
	// unknown). The second process polls at a quarter of that rate; it
	// still takes its share of the sends, which the tests check.
	poll := 50 * time.Millisecond
	if e.DB.Dialect() == store.SQLite {
		poll = 200 * time.Millisecond
	}
	q, err := jobs.New(context.Background(), e.DB, jobs.Config{Work: true, PollInterval: poll, Logger: producttest.FailureLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	e.n.RegisterJobs(q)
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = q.Stop(ctx)
	})
	return q
}

// obj is a decoded JSON object.
type obj = map[string]any

// call sends a request as user and decodes the answer.
func (e *dunEnv) call(user accounts.User, method, path string, body any, header ...string) (int, obj) {
	e.t.Helper()
	code, text := e.Do(user, method, path, body, header...)
	var out obj
	if text != "" {
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			e.t.Fatalf("%s %s: %d %v: %s", method, path, code, err, text)
		}
	}
	return code, out
}

// ok sends a request as the owner, wants status want, and answers data.
func (e *dunEnv) ok(want int, method, path string, body any, header ...string) obj {
	e.t.Helper()
	code, out := e.call(e.Owner, method, path, body, header...)
	if code != want {
		e.t.Fatalf("%s %s: %d, want %d: %v", method, path, code, want, out)
	}
	d, _ := out["data"].(obj)
	return d
}

// must is a request that must answer want; it returns the body.
func (e *dunEnv) must(user accounts.User, want int, method, path string, body any) string {
	e.t.Helper()
	code, out := e.Do(user, method, path, body)
	if code != want {
		e.t.Fatalf("%s %s: %d, want %d: %s", method, path, code, want, out)
	}
	return out
}

// fails sends a request as user, wants status and error code, and answers
// the fields the details name and the message.
func (e *dunEnv) fails(user accounts.User, status int, code, method, path string, body any) ([]string, string) {
	e.t.Helper()
	got, out := e.call(user, method, path, body)
	er, _ := out["error"].(obj)
	if got != status || er == nil || er["code"] != code {
		e.t.Fatalf("%s %s: %d %v, want %d %s", method, path, got, out, status, code)
	}
	var fields []string
	details, _ := er["details"].([]any)
	for _, d := range details {
		if m, ok := d.(obj); ok {
			fields = append(fields, m["field"].(string))
		}
	}
	msg, _ := er["message"].(string)
	return fields, msg
}

// refused wants a 422 whose message names rule.
func (e *dunEnv) refused(method, path string, body any, rule string) string {
	e.t.Helper()
	_, msg := e.fails(e.Owner, 422, "UNPROCESSABLE", method, path, body)
	if !strings.Contains(msg, "rule "+rule+":") {
		e.t.Fatalf("%s %s: %q does not name rule %s", method, path, msg, rule)
	}
	return msg
}

// wantFields fails unless the error named exactly the fields want.
func wantFields(t testing.TB, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("error fields %v, want %v", got, want)
	}
}

// debtor creates (or replaces) a debtor by external id as the owner.
func (e *dunEnv) debtor(ext, name, document string) obj {
	e.t.Helper()
	code, out := e.call(e.Owner, "PUT", "/v1/debtors/"+ext, obj{"name": name, "document": document, "emails": []string{ext + "@example.com"}})
	if code != 201 && code != 200 {
		e.t.Fatalf("upsert debtor %s: %d %v", ext, code, out)
	}
	return out["data"].(obj)
}

// charge creates a charge as the owner and answers it.
func (e *dunEnv) charge(body obj) obj {
	e.t.Helper()
	return e.ok(201, "POST", "/v1/charges", body)
}

// overdueCharge creates the debtor maria and a charge of hers already
// overdue at coreStart (due 20 February 2026), and answers its id.
func (e *dunEnv) overdueCharge(ext string, amount float64) string {
	e.t.Helper()
	e.debtor("maria", "Maria da Silva", cpfOK)
	c := e.charge(obj{"debtor_id": "maria", "external_id": ext, "amount": amount, "due_date": "2026-02-20", "description": "Mensalidade"})
	if c["status"] != "overdue" {
		e.t.Fatalf("charge %v", c)
	}
	return c["id"].(string)
}

// closeCharge pays a charge in full through the API
// (dunning_charges_payments_create): the payment that clears it marks it
// paid and runs the charge-closed hooks — enrollments stop, queued
// messages are skipped — in the same transaction.
func (e *dunEnv) closeCharge(t testing.TB, chargeID string) {
	t.Helper()
	code, body := e.Do(e.Owner, "GET", "/v1/charges/"+chargeID, nil)
	var got struct {
		Data struct {
			UpdatedAmount float64 `json:"updated_amount"`
		}
	}
	if code != 200 || json.Unmarshal([]byte(body), &got) != nil {
		t.Fatalf("GET charge: %d %s", code, body)
	}
	code, body = e.Do(e.Owner, "POST", "/v1/charges/"+chargeID+"/payments", map[string]any{"amount": got.Data.UpdatedAmount, "method": "pix"})
	if code != 201 || !strings.Contains(body, `"paid"`) {
		t.Fatalf("payment: %d %s", code, body)
	}
}

// priorNotice sends the charge's prior notice (by e-mail, the outbox) and
// waits until it is sent.
func (e *dunEnv) priorNotice(ext string) {
	e.t.Helper()
	n := e.ok(202, "POST", "/v1/charges/"+ext+"/notify", obj{"kind": "prior_notice"})
	id := n["id"].(string)
	e.eventually("the prior notice sent", func() bool {
		var st string
		_ = e.DB.Get(context.Background(), &st, `SELECT status FROM dunning_notifications WHERE id = ?`, id)
		return st == notify.NotificationSent
	})
}

// events are the slugs of the events emitted about subject, oldest first.
func (e *dunEnv) events(subject string) []string {
	e.t.Helper()
	var slugs []string
	if err := e.DB.Select(context.Background(), &slugs, `SELECT slug FROM system_events WHERE product = 'dunning' AND subject_id = ? ORDER BY created_at, id`, subject); err != nil {
		e.t.Fatal(err)
	}
	return slugs
}

// commandStatus is a command's status in the database.
func (e *dunEnv) commandStatus(id string) string {
	var st string
	if err := e.DB.Get(context.Background(), &st, `SELECT status FROM dunning_commands WHERE id = ?`, id); err != nil {
		e.t.Fatal(err)
	}
	return st
}

func (e *dunEnv) waitStatus(id, want string) {
	e.t.Helper()
	e.eventually("command "+id+" "+want, func() bool { return e.commandStatus(id) == want })
}

// eventually polls cond until it holds.
func (e *dunEnv) eventually(what string, cond func() bool) {
	e.t.Helper()
	eventually(e.t, what, cond)
}

// eventually polls cond every testPoll until it holds, for up to
// testWait.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(testPoll)
	}
}

// num reads a JSON number field.
func num(o obj, key string) float64 {
	f, _ := o[key].(float64)
	return f
}

// productCatalog is the product as declared, without a database.
func productCatalog() (*productkit.Listener, error) { return productkit.Catalog(Spec()) }
