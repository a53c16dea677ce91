package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// lagServer answers a watched person's requests by their membership in the
// database, but takes a change into account only lag after it first saw
// it: a replica whose view is lag late, so the watch must measure at
// least lag. Requests with the other token are always served.
type lagServer struct {
	a            *accounts.Store
	org, user    string
	lag          time.Duration
	mu           sync.Mutex
	served       string
	pending      string
	pendingSince time.Time
	requests     map[string]int // the watched person's requests, by tool
}

func (s *lagServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer watched" {
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
		return
	}
	role := ""
	if m, err := s.a.GetMembership(r.Context(), s.org, s.user); err == nil {
		role = string(m.Role)
	}
	s.mu.Lock()
	if s.requests == nil {
		s.requests = map[string]int{}
	}
	s.requests[r.Header.Get("Mcp-Name")]++
	if role != s.served {
		if role != s.pending {
			s.pending, s.pendingSince = role, time.Now()
		}
		if time.Since(s.pendingSince) >= s.lag {
			s.served = role
		}
	}
	served := s.served
	s.mu.Unlock()
	if served == "" {
		http.Error(w, `{"error":"forbidden"}`, http.StatusForbidden)
		return
	}
	if r.Header.Get("Mcp-Name") == "write_tool" && !identity.Role(served).Allows(identity.PermWrite) {
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"insufficient role"}}`))
		return
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
}

// TestWatchMeasuresTheReplicasLag changes a membership through the real
// write paths (removal, re-adding, demotion) while the watch drives a
// server that applies changes 80 ms late: every change must be found, no
// earlier than the lag, and the other person's stream never refused.
func TestWatchMeasuresTheReplicasLag(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := storetest.URL(t, store.Postgres)
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	a := accounts.New(db, accounts.Options{})
	org, err := a.CreateOrganization(ctx, "Watch Ltda")
	if err != nil {
		t.Fatal(err)
	}
	u, err := a.CreateUser(ctx, accounts.NewUser{Email: "ana@watch.test", Password: "a long password", OrganizationID: org.ID, Role: identity.RoleMember})
	if err != nil {
		t.Fatal(err)
	}
	const lag = 80 * time.Millisecond
	ls := &lagServer{a: a, org: org.ID, user: u.ID, lag: lag, served: string(identity.RoleMember), pending: string(identity.RoleMember)}
	srv := httptest.NewServer(ls)
	defer srv.Close()

	url := srv.URL + "/mcp"
	cfg := watchConfig{DatabaseURL: dbURL, UserID: u.ID, OrgID: org.ID, Streams: []streamConfig{
		{Name: "watched read", URL: url, Token: "watched", Method: "tools/call", Tool: "read_tool", Workers: 2, Needs: identity.PermRead, Watched: true},
		{Name: "watched write", URL: url, Token: "watched", Method: "tools/call", Tool: "write_tool", Workers: 2, Needs: identity.PermWrite, Watched: true},
		{Name: "other", URL: url, Token: "other", Method: "tools/list", Workers: 2},
	}}
	wctx, cancel := context.WithCancel(ctx)
	readyc := make(chan struct{})
	type result struct {
		rep watchReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := runWatch(wctx, cfg, func() { close(readyc) })
		done <- result{rep, err}
	}()
	select {
	case <-readyc:
	case r := <-done:
		t.Fatalf("the watch ended before it was ready: %v", r.err)
	case <-time.After(10 * time.Second):
		t.Fatal("the watch never got ready")
	}
	// Every watched stream is answered before the first change (on a
	// loaded host a stream's first answer could come after it, and the
	// change would have no "before" to compare with): with two workers a
	// stream, a third request means one was answered.
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		ls.mu.Lock()
		reads, writes := ls.requests["read_tool"], ls.requests["write_tool"]
		ls.mu.Unlock()
		if reads >= 3 && writes >= 3 {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the watched streams did not start: %d reads, %d writes", reads, writes)
		}
	}
	// A change is stamped with the start of the poll before the one that
	// saw it; on a loaded host the poller can be starved long enough that
	// this poll started before the streams' first answers, leaving the
	// change no "before". Let it poll a while first.
	time.Sleep(4 * lag)
	steps := []func() error{
		func() error { return a.RemoveMember(ctx, org.ID, u.ID) },
		func() error { return a.SetRole(ctx, org.ID, u.ID, identity.RoleMember) },
		func() error { return a.SetRole(ctx, org.ID, u.ID, identity.RoleViewer) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(4 * lag)
	}
	cancel()
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	rep := res.rep
	if len(rep.Changes) != 3 {
		t.Fatalf("changes seen: %+v", rep.Changes)
	}
	wantFlips := [][]bool{{true, true, false}, {true, true, false}, {false, true, false}}
	for i, ch := range rep.Changes {
		for j, e := range ch.Streams {
			if e.Flips != wantFlips[i][j] {
				t.Errorf("change %d (%q→%q), %s: flips %v", i, ch.From, ch.To, e.Name, e.Flips)
			}
			if e.Wrong != 0 {
				t.Errorf("change %d, %s: %d answers with the wrong outcome", i, e.Name, e.Wrong)
			}
			if !e.Flips {
				continue
			}
			t.Logf("change %d (%q→%q), %s: first %.1f ms, settled %.1f ms, %d stale", i, ch.From, ch.To, e.Name, e.FirstMs, e.SettledMs, e.Stale)
			if !e.Found || !e.WasOld {
				t.Errorf("change %d (%q→%q), %s: %+v", i, ch.From, ch.To, e.Name, e)
			}
			// The server saw the change after its commit and applied it lag
			// later: no measurement can be shorter.
			if e.FirstMs < ms(lag) || e.SettledMs > 0 && e.SettledMs < ms(lag)/2 {
				t.Errorf("change %d, %s: first %.1f ms, settled %.1f ms; the lag is %v", i, e.Name, e.FirstMs, e.SettledMs, lag)
			}
		}
	}
	if d := rep.Changes[0].Streams[0]; !strings.Contains(d.Refusal, "status 403") {
		t.Errorf("the removal's refusal: %q", d.Refusal)
	}
	if d := rep.Changes[2].Streams[1]; !strings.Contains(d.Refusal, "insufficient role") {
		t.Errorf("the demotion's refusal: %q", d.Refusal)
	}
	if o := rep.Streams[2]; o.Requests == 0 || o.Refused != 0 {
		t.Errorf("the other person's stream: %+v", o)
	}
}

// TestAnalyzeStaleAndMissing: answers with the old outcome to requests
// sent after a change count as stale; a change no answer ever reflects is
// not found.
func TestAnalyzeStaleAndMissing(t *testing.T) {
	t.Parallel()
	cfg := []streamConfig{{Name: "watched", Needs: identity.PermRead, Watched: true}}
	msd := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	changes := []roleChange{{0, "member"}, {msd(100), ""}, {msd(500), "member"}}
	answers := [][]answer{{
		{sent: msd(90), answered: msd(95), ok: true},
		{sent: msd(99), answered: msd(130), ok: true},  // sent before: not stale
		{sent: msd(110), answered: msd(140), ok: true}, // stale
		{sent: msd(120), answered: msd(150), ok: false, err: "status 403"},
		{sent: msd(145), answered: msd(160), ok: true}, // stale, after the first refusal
		{sent: msd(170), answered: msd(180), ok: false},
		{sent: msd(600), answered: msd(610), ok: false}, // after re-adding: never served again
	}}
	rep := analyze(cfg, changes, answers)
	if len(rep.Changes) != 2 {
		t.Fatalf("%+v", rep)
	}
	rm := rep.Changes[0].Streams[0]
	if !rm.Found || !rm.WasOld || rm.FirstMs != 50 || rm.Stale != 2 || rm.SettledMs != 60 || rm.Refusal != "status 403" {
		t.Errorf("removal: %+v", rm)
	}
	back := rep.Changes[1].Streams[0]
	if back.Found || !back.WasOld {
		t.Errorf("re-adding: %+v (refused before it, as the removal should; never served after)", back)
	}
	if s := rep.Streams[0]; s.Requests != 7 || s.Refused != 3 || s.FirstError != "status 403" {
		t.Errorf("totals: %+v", s)
	}
}
