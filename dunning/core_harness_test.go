package dunning

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// The harness of the core operations' tests (me, settings, debtors,
// charges, payments): Dunning on loopback over a real database with a
// test clock, and users of every role in the first organization.

// coreClock is a settable clock for service.now.
type coreClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *coreClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *coreClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// brasilia is the organizations' default zone.
var brasilia = func() *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		panic(err)
	}
	return loc
}()

// coreStart is noon of Tuesday 10 March 2026 in Brasília, a business day.
var coreStart = time.Date(2026, 3, 10, 12, 0, 0, 0, brasilia)

// coreEnv is Dunning serving the core operations with its clock at
// coreStart, and what the tests need around it.
type coreEnv struct {
	*producttest.Env
	t      *testing.T
	clock  *coreClock
	Viewer accounts.User
	Member accounts.User
	Admin  accounts.User
	// closed records every onChargeClosed call: charge id and reason.
	closedMu sync.Mutex
	closed   []string
}

func newCoreEnv(t *testing.T, db *store.DB) *coreEnv {
	t.Helper()
	return newCoreEnvWith(t, db, nil)
}

// newCoreEnvWith is newCoreEnv whose service extra adjusts too (the
// escalation tests point it at their own provider).
func newCoreEnvWith(t *testing.T, db *store.DB, extra func(*service)) *coreEnv {
	t.Helper()
	ce := &coreEnv{t: t, clock: &coreClock{t: coreStart}}
	ce.Env = producttest.Start(t, db, specWith(func(s *service) {
		if extra != nil {
			extra(s)
		}
		s.now = ce.clock.Now
		s.whenChargeClosed(func(_ context.Context, _ *store.Tx, c Charge, reason lifecycle.StopReason) error {
			ce.closedMu.Lock()
			ce.closed = append(ce.closed, c.ID+":"+string(reason))
			ce.closedMu.Unlock()
			return nil
		})
	}), producttest.Options{})
	ctx := context.Background()
	for _, u := range []struct {
		dst  *accounts.User
		role identity.Role
	}{{&ce.Viewer, identity.RoleViewer}, {&ce.Member, identity.RoleMember}, {&ce.Admin, identity.RoleAdmin}} {
		var err error
		*u.dst, err = ce.Acc.CreateUser(ctx, accounts.NewUser{Email: string(u.role) + "@mine.example", Password: "a long enough password",
			OrganizationID: ce.Mine.ID, Role: u.role})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ce
}

func (ce *coreEnv) closedCalls() []string {
	ce.closedMu.Lock()
	defer ce.closedMu.Unlock()
	return append([]string(nil), ce.closed...)
}

// obj is a decoded JSON object.
type obj = map[string]any

// call sends a request as user and decodes the answer.
func (ce *coreEnv) call(user accounts.User, method, path string, body any, header ...string) (int, obj) {
	ce.t.Helper()
	code, text := ce.Do(user, method, path, body, header...)
	var out obj
	if text != "" {
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			ce.t.Fatalf("%s %s: %d %v: %s", method, path, code, err, text)
		}
	}
	return code, out
}

// ok sends a request as the owner, wants status want, and answers data.
func (ce *coreEnv) ok(want int, method, path string, body any, header ...string) obj {
	ce.t.Helper()
	code, out := ce.call(ce.Owner, method, path, body, header...)
	if code != want {
		ce.t.Fatalf("%s %s: %d, want %d: %v", method, path, code, want, out)
	}
	d, _ := out["data"].(obj)
	return d
}

// fails sends a request as user, wants status and error code, and answers
// the fields the details name and the message.
func (ce *coreEnv) fails(user accounts.User, status int, code, method, path string, body any) ([]string, string) {
	ce.t.Helper()
	got, out := ce.call(user, method, path, body)
	e, _ := out["error"].(obj)
	if got != status || e == nil || e["code"] != code {
		ce.t.Fatalf("%s %s: %d %v, want %d %s", method, path, got, out, status, code)
	}
	var fields []string
	details, _ := e["details"].([]any)
	for _, d := range details {
		if m, ok := d.(obj); ok {
			fields = append(fields, m["field"].(string))
		}
	}
	msg, _ := e["message"].(string)
	return fields, msg
}

// wantFields fails unless the error named exactly the fields want.
func wantFields(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("error fields %v, want %v", got, want)
	}
}

// debtor creates (or replaces) a debtor by external id as the owner.
func (ce *coreEnv) debtor(ext, name, document string) obj {
	ce.t.Helper()
	code, out := ce.call(ce.Owner, "PUT", "/v1/debtors/"+ext, obj{"name": name, "document": document, "emails": []string{ext + "@example.com"}})
	if code != 201 && code != 200 {
		ce.t.Fatalf("upsert debtor %s: %d %v", ext, code, out)
	}
	return out["data"].(obj)
}

// charge creates a charge as the owner and answers it.
func (ce *coreEnv) charge(body obj) obj {
	ce.t.Helper()
	return ce.ok(201, "POST", "/v1/charges", body)
}

// events are the slugs of the events emitted about subject, oldest first.
func (ce *coreEnv) events(subject string) []string {
	ce.t.Helper()
	var slugs []string
	if err := ce.DB.Select(context.Background(), &slugs, `SELECT slug FROM system_events WHERE product = 'dunning' AND subject_id = ? ORDER BY created_at, id`, subject); err != nil {
		ce.t.Fatal(err)
	}
	return slugs
}

// num reads a JSON number field.
func num(o obj, key string) float64 {
	f, _ := o[key].(float64)
	return f
}
