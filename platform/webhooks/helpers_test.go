package webhooks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// tenant is an organization with one workspace.
type tenant struct{ org, ws string }

// newTenant inserts an organization and a workspace.
func newTenant(t *testing.T, db *store.DB) tenant {
	t.Helper()
	ctx := context.Background()
	tn := tenant{org: store.NewID(), ws: store.NewID()}
	now := store.Now()
	if _, err := db.Exec(ctx, `INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)`, tn.org, "Org", now); err != nil {
		t.Fatal(err)
	}
	tn.ws = addWorkspace(t, db, tn.org)
	return tn
}

func addWorkspace(t *testing.T, db *store.DB, org string) string {
	t.Helper()
	id := store.NewID()
	if _, err := db.Exec(context.Background(), `INSERT INTO workspaces (id, organization_id, external_id, label, email_prefix, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, id, org, id, "WS", "ws", store.Now()); err != nil {
		t.Fatal(err)
	}
	return id
}

// testConfig reaches local receivers and retries after tiny delays.
func testConfig() Config {
	return Config{
		Product:             "inbox",
		AllowPrivateTargets: true,
		Retries:             []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond},
		Timeout:             2 * time.Second,
		Environment:         "test",
	}
}

// hook creates an active webhook of tn on url subscribed to events.
func hook(t *testing.T, s *Service, tn tenant, url string, events ...string) (Webhook, string) {
	t.Helper()
	w, secret, err := s.Create(context.Background(), NewWebhook{
		OrganizationID: tn.org, WorkspaceID: tn.ws, Label: "hook", URL: url, Auth: AuthNone, SubscribedEvents: events,
	})
	if err != nil {
		t.Fatal(err)
	}
	return w, secret
}

// received is one request a receiver got.
type received struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// receiver is a local webhook target answering with the statuses queued
// in it (200 once they run out); a negative status hangs until the
// client gives up. Redirects point to location.
type receiver struct {
	*httptest.Server
	location string
	mu       sync.Mutex
	statuses []int
	got      []received
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	t.Helper()
	return newRedirectingReceiver(t, "", statuses...)
}

func newRedirectingReceiver(t *testing.T, location string, statuses ...int) *receiver {
	t.Helper()
	r := &receiver{statuses: statuses, location: location}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{Header: req.Header.Clone(), Body: body, At: time.Now()})
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		if status < 0 {
			<-req.Context().Done()
			return
		}
		w.Header().Set("X-Receiver", "yes")
		if r.location != "" {
			w.Header().Set("Location", r.location)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"received":true}`)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// onlyDelivery returns the one delivery of a webhook.
func onlyDelivery(t *testing.T, s *Service, tn tenant, webhookID string) Delivery {
	t.Helper()
	ds, err := s.ListDeliveries(context.Background(), tn.org, tn.ws, webhookID, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 {
		t.Fatalf("deliveries of %s: got %d, want 1", webhookID, len(ds))
	}
	return ds[0]
}

// deliverAll runs a delivery's job the way the queue would, attempt after
// attempt (waiting out each retry delay), until it is finished, and
// returns the outcome of each run that did something.
func deliverAll(t *testing.T, s *Service, tn tenant, deliveryID string) []string {
	t.Helper()
	var outcomes []string
	for range 20 {
		res, err := s.attempt(context.Background(), deliveryArgs{DeliveryID: deliveryID, OrganizationID: tn.org, Product: s.cfg.Product})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != "" {
			outcomes = append(outcomes, res.Outcome)
		}
		if res.Wait <= 0 {
			return outcomes
		}
		time.Sleep(res.Wait)
	}
	t.Fatalf("delivery %s still pending after 20 runs: %v", deliveryID, outcomes)
	return nil
}

// emit emits an event of tn and fails the test on error.
func emit(t *testing.T, s *Service, tn tenant, slug, scope string) SystemEvent {
	t.Helper()
	ev, err := s.Emit(context.Background(), nil, Event{OrganizationID: tn.org, WorkspaceID: tn.ws, Slug: slug, ScopeID: scope, SubjectID: "subject-1", Data: map[string]any{"n": 1}})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}
