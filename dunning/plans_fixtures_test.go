package dunning

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// planClock is the service's clock in these tests: it moves only when a
// test sets it, so schedule time never passes by sleeping.
type planClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *planClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *planClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// plansEnv is Dunning on loopback on the test clock, with the service
// itself at hand (for the charge-closed hook and the step runner's
// advance), a member and a viewer of Mine besides its owner.
type plansEnv struct {
	*producttest.Env
	tt     *testing.T
	svc    *service
	clock  *planClock
	member accounts.User
	viewer accounts.User
}

// planBRT is Brasília time, the default zone of an organization.
var planBRT = func() *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		panic(err)
	}
	return loc
}()

func newPlansEnv(t *testing.T, db *store.DB, now time.Time) *plansEnv {
	t.Helper()
	pe := &plansEnv{tt: t, clock: &planClock{t: now}}
	spec := specWith(func(s *service) {
		pe.svc = s
		s.now = pe.clock.Now
	})
	pe.Env = producttest.Start(t, db, spec, producttest.Options{Webhooks: productkit.WebhookSettings{
		AllowPrivateTargets: true, Retries: []time.Duration{10 * time.Millisecond}}})
	ctx := context.Background()
	var err error
	if pe.member, err = pe.Acc.CreateUser(ctx, accounts.NewUser{Email: "member@mine.example", Password: "a long enough password",
		OrganizationID: pe.Mine.ID, Role: identity.RoleMember}); err != nil {
		t.Fatal(err)
	}
	if pe.viewer, err = pe.Acc.CreateUser(ctx, accounts.NewUser{Email: "viewer@mine.example", Password: "a long enough password",
		OrganizationID: pe.Mine.ID, Role: identity.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	return pe
}

// must is a request that must answer want; it returns the body.
func (pe *plansEnv) must(user accounts.User, want int, method, path string, body any) string {
	pe.tt.Helper()
	code, out := pe.Do(user, method, path, body)
	if code != want {
		pe.tt.Fatalf("%s %s: %d, want %d: %s", method, path, code, want, out)
	}
	return out
}

// planSeedDebtor inserts a debtor of org with the given contacts, as the
// debtors' operations store them (E.164 phones, digits-only document).
func planSeedDebtor(t *testing.T, db *store.DB, orgID, name string, emails, phones []string) string {
	t.Helper()
	if emails == nil {
		emails = []string{}
	}
	if phones == nil {
		phones = []string{}
	}
	id := store.NewID()
	now := store.Now()
	e, _ := json.Marshal(emails)
	p, _ := json.Marshal(phones)
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind,
		emails, phones, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'natural', ?, ?, 'active', ?, ?)`,
		id, orgID, "ext-"+id, name, "52998224725", string(e), string(p), now, now); err != nil {
		t.Fatal(err)
	}
	if err := syncDebtorCount(context.Background(), db, id); err != nil {
		t.Fatal(err)
	}
	return id
}

func planSeedOptOut(t *testing.T, db *store.DB, orgID, debtorID, channel, reason string) {
	t.Helper()
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_opt_outs (debtor_id, organization_id, channel, reason, source, created_at)
		VALUES (?, ?, ?, ?, 'debtor', ?)`, debtorID, orgID, channel, reason, time.Date(2026, 1, 20, 15, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
}

// planChargeSeed is what a fixture charge differs in.
type planChargeSeed struct {
	ExternalID  string
	Due         string
	AmountCents int64
	// Fine and Interest in ten-thousandths of a percent (2 % = 20000).
	Fine, Interest int64
	Status         string
	PaymentLink    string
}

func planSeedCharge(t *testing.T, db *store.DB, orgID, debtorID string, c planChargeSeed) string {
	t.Helper()
	if c.Status == "" {
		c.Status = "pending"
	}
	if c.AmountCents == 0 {
		c.AmountCents = 100000
	}
	var ext, link any
	if c.ExternalID != "" {
		ext = c.ExternalID
	}
	if c.PaymentLink != "" {
		link = c.PaymentLink
	}
	id := store.NewID()
	now := store.Now()
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_charges (id, organization_id, debtor_id, external_id, amount_cents,
		open_amount_cents, due_date, description, fine, interest, origin, payment_link, tags, custom_data, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'Mensalidade', ?, ?, 'external', ?, '[]', '{}', ?, ?, ?)`,
		id, orgID, debtorID, ext, c.AmountCents, c.AmountCents, c.Due, c.Fine, c.Interest, link, c.Status, now, now); err != nil {
		t.Fatal(err)
	}
	if err := syncChargeCount(context.Background(), db, id); err != nil {
		t.Fatal(err)
	}
	return id
}

// planSeedSettings stores an organization's settings row with extra
// closed days and quiet hours.
func planSeedSettings(t *testing.T, db *store.DB, orgID, quietStart, quietEnd string, closed []string) {
	t.Helper()
	if closed == nil {
		closed = []string{}
	}
	days, _ := json.Marshal(closed)
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_settings (organization_id, timezone, quiet_start, quiet_end, grace_days,
		channels, company_fine_cap, closed_days, updated_at) VALUES (?, 'America/Sao_Paulo', ?, ?, 0, ?, 1000000, ?, ?)`,
		orgID, quietStart, quietEnd, `{"email":{"enabled":true,"provider":"outbox"},"sms":{"enabled":true,"provider":"outbox"},"whatsapp":{"enabled":true,"provider":"outbox"}}`,
		string(days), store.Now()); err != nil {
		t.Fatal(err)
	}
}

// planBody and stepBody are what the tests create.
func (pe *plansEnv) createPlan(name string) planDetailJSON {
	pe.tt.Helper()
	return planData[planDetailJSON](pe.tt, pe.must(pe.Owner, 201, "POST", "/v1/collection-plans", map[string]any{"name": name}))
}

func (pe *plansEnv) addStep(planID string, body map[string]any) stepJSON {
	pe.tt.Helper()
	return planData[stepJSON](pe.tt, pe.must(pe.Owner, 201, "POST", "/v1/collection-plans/"+planID+"/steps", body))
}

func (pe *plansEnv) activate(planID string) {
	pe.tt.Helper()
	pe.must(pe.Owner, 200, "PATCH", "/v1/collection-plans/"+planID, map[string]any{"status": "active"})
}

// planData is a body's data member.
func planData[T any](t *testing.T, body string) T {
	t.Helper()
	var out struct{ Data T }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return out.Data
}

// planErrorBody is an error answer: its code, message and details.
type planErrorBody struct {
	Code    string
	Message string
	Details []struct{ Field, Message string }
}

func planErrorOf(t *testing.T, body string) planErrorBody {
	t.Helper()
	var out struct{ Error planErrorBody }
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return out.Error
}

// wantError checks an error answer's status, code and that its message
// contains each of texts.
func (pe *plansEnv) wantError(user accounts.User, status int, code, method, path string, body any, texts ...string) planErrorBody {
	pe.tt.Helper()
	got, out := pe.Do(user, method, path, body)
	e := planErrorOf(pe.tt, out)
	if got != status || e.Code != code {
		pe.tt.Fatalf("%s %s: %d %s, want %d %s: %s", method, path, got, e.Code, status, code, out)
	}
	for _, text := range texts {
		if !strings.Contains(e.Message, text) {
			pe.tt.Fatalf("%s %s: message %q lacks %q", method, path, e.Message, text)
		}
	}
	return e
}

// events are the slugs of the Dunning events stored for org, oldest
// first.
func planEvents(t *testing.T, db *store.DB, orgID string) []string {
	t.Helper()
	var slugs []string
	if err := db.Select(context.Background(), &slugs, `SELECT slug FROM system_events WHERE organization_id = ? AND product = 'dunning'
		ORDER BY created_at, id`, orgID); err != nil {
		t.Fatal(err)
	}
	return slugs
}

func planCount(t *testing.T, db *store.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Get(context.Background(), &n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// planConfirmedCall runs a destructive tool as user the way a 2026 client
// with form elicitation does: the call asks (its message is returned),
// the retry accepts; it returns the message, the retry's first text and
// whether the retry is an error, and the state (to replay it).
func (pe *plansEnv) planConfirmedCall(user accounts.User, tool string, args map[string]any) (message, text string, isErr bool, state string) {
	pe.tt.Helper()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "plans-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}
	var ask struct {
		Result struct {
			ResultType    string                    `json:"resultType"`
			RequestState  string                    `json:"requestState"`
			InputRequests map[string]map[string]any `json:"inputRequests"`
			Content       []struct{ Text string }
			IsError       bool
		}
	}
	raw := pe.RPC(user, "tools/call", map[string]any{"name": tool, "arguments": args, "_meta": meta})
	if err := json.Unmarshal([]byte(raw), &ask); err != nil || ask.Result.ResultType != "input_required" {
		pe.tt.Fatalf("%s asked nothing: %s", tool, raw)
	}
	params, _ := ask.Result.InputRequests["confirm"]["params"].(map[string]any)
	message, _ = params["message"].(string)
	state = ask.Result.RequestState
	text, isErr = pe.planRetry(user, tool, args, state)
	return message, text, isErr, state
}

// planRetry answers a confirmation with state: accepted.
func (pe *plansEnv) planRetry(user accounts.User, tool string, args map[string]any, state string) (string, bool) {
	pe.tt.Helper()
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "plans-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
	}
	raw := pe.RPC(user, "tools/call", map[string]any{"name": tool, "arguments": args, "_meta": meta, "requestState": state,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	var done struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool `json:"isError"`
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(raw), &done); err != nil {
		pe.tt.Fatalf("%s: %s", tool, raw)
	}
	if done.Error != nil {
		return done.Error.Message, true
	}
	if len(done.Result.Content) == 0 {
		pe.tt.Fatalf("%s: no content: %s", tool, raw)
	}
	return done.Result.Content[0].Text, done.Result.IsError
}
