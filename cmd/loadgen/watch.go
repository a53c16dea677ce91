package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The refusal watch (scripts/bench-replicas.sh; docs/decisions.md, "Load
// checks: peer, memory, replicas"): streams of requests run in closed
// loops against one replica while a person's membership is changed
// elsewhere (another replica, or the CLI as another process); a poller
// reads the membership from the database every millisecond, so the
// moment each change became visible there is known to within about a
// millisecond. At the end, for every change, each stream whose outcome the
// change should flip reports how long after it the first answer with the
// new outcome came, and how long answers with the old one still came for
// requests sent after it (the staleness, which is what a cache bounds).

// watchConfig is the -watch file.
type watchConfig struct {
	DatabaseURL string         `json:"database_url"`
	UserID      string         `json:"user_id"`
	OrgID       string         `json:"org_id"`
	Poll        string         `json:"poll"` // default 1ms
	Streams     []streamConfig `json:"streams"`
}

// streamConfig is one closed loop: a call, how many workers send it, and
// what it needs of the watched membership: a permission class (read,
// write, manage, own) the watched person's role must allow, or nothing for
// a stream of somebody else's token, which must be served throughout.
type streamConfig struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Token    string `json:"token"`
	Method   string `json:"method"`
	Tool     string `json:"tool"`
	Args     string `json:"args"`
	Protocol string `json:"protocol"`
	Workers  int    `json:"workers"`
	Needs    string `json:"needs"`
	Watched  bool   `json:"watched"` // the token is the watched person's
}

// allowed is whether the stream's requests should be served while the
// watched person has role ("" = no membership).
func (s streamConfig) allowed(role string) bool {
	if !s.Watched {
		return true
	}
	return identity.Role(role).Allows(s.Needs)
}

// answer is one request of a stream: when it was sent and answered (since
// the watch began) and whether it was served.
type answer struct {
	sent, answered time.Duration
	ok             bool
	err            string // the first bytes of a refusal
}

// roleChange is the membership as the poller saw it from at on.
type roleChange struct {
	at   time.Duration
	role string
}

// changeReport is what one change did to each stream.
type changeReport struct {
	AtSeconds float64        `json:"at_s"`
	From      string         `json:"from"`
	To        string         `json:"to"`
	Streams   []streamEffect `json:"streams"`
}

// streamEffect is one stream's view of one change. For a stream whose
// outcome flips: FirstMs is the first answer with the new outcome after the
// change, SettledMs the last answer with the old one to a request sent after
// the change (0 when none), Stale how many such answers came. Found is false
// when no answer with the new outcome came before the next change;
// WasOld is false when the stream's last answer before the change did not
// have the old outcome (then FirstMs says nothing).
type streamEffect struct {
	Name      string  `json:"name"`
	Flips     bool    `json:"flips"`
	Found     bool    `json:"found"`
	WasOld    bool    `json:"was_old"`
	FirstMs   float64 `json:"first_ms"`
	SettledMs float64 `json:"settled_ms"`
	Stale     int     `json:"stale"`
	Refusal   string  `json:"refusal,omitempty"`
	Wrong     int     `json:"wrong"` // answers of a stream that does not flip, with the wrong outcome
}

// streamTotal is a stream's count over the whole watch.
type streamTotal struct {
	Name       string `json:"name"`
	Requests   int    `json:"requests"`
	Refused    int    `json:"refused"`
	FirstError string `json:"first_error,omitempty"`
}

type watchReport struct {
	Changes []changeReport `json:"changes"`
	Streams []streamTotal  `json:"streams"`
	Polls   int            `json:"polls"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// analyze pairs every change the poller saw with the answers of each
// stream. changes[0] is the state at the start (not a change); answers of
// each stream are in any order.
func analyze(cfg []streamConfig, changes []roleChange, answers [][]answer) watchReport {
	var rep watchReport
	for i, s := range cfg {
		t := streamTotal{Name: s.Name, Requests: len(answers[i])}
		var firstAt time.Duration
		for _, a := range answers[i] {
			if !a.ok {
				t.Refused++
				if t.FirstError == "" || a.answered < firstAt {
					t.FirstError, firstAt = a.err, a.answered
				}
			}
		}
		rep.Streams = append(rep.Streams, t)
	}
	for c := 1; c < len(changes); c++ {
		ch := changes[c]
		prev := changes[c-1]
		end := time.Duration(1<<63 - 1)
		if c+1 < len(changes) {
			end = changes[c+1].at
		}
		cr := changeReport{AtSeconds: ch.at.Seconds(), From: prev.role, To: ch.role}
		for i, s := range cfg {
			wantOld, wantNew := s.allowed(prev.role), s.allowed(ch.role)
			e := streamEffect{Name: s.Name, Flips: wantOld != wantNew}
			var first, lastBefore time.Duration = -1, -1
			for _, a := range answers[i] {
				switch {
				case a.answered < ch.at:
					// The last answer before the change: did the stream
					// have the old outcome?
					if a.answered > lastBefore {
						lastBefore = a.answered
						e.WasOld = a.ok == wantOld
					}
				case a.answered < end:
					if !e.Flips {
						if a.sent >= ch.at && a.ok != wantNew {
							e.Wrong++
						}
						continue
					}
					if a.ok == wantNew && (first < 0 || a.answered < first) {
						first = a.answered
						e.Refusal = a.err
					}
					if a.ok == wantOld && a.sent >= ch.at {
						e.Stale++
						if d := ms(a.answered - ch.at); d > e.SettledMs {
							e.SettledMs = d
						}
					}
				}
			}
			if lastBefore < 0 {
				e.WasOld = false
			}
			if e.Flips && first >= 0 {
				e.Found = true
				e.FirstMs = ms(first - ch.at)
			}
			cr.Streams = append(cr.Streams, e)
		}
		rep.Changes = append(rep.Changes, cr)
	}
	return rep
}

// runWatch sends the streams and polls the membership until ctx ends, then
// analyzes. ready is called once the first poll and a first answer of every
// stream are in.
func runWatch(ctx context.Context, cfg watchConfig, ready func()) (watchReport, error) {
	poll := time.Millisecond
	if cfg.Poll != "" {
		d, err := time.ParseDuration(cfg.Poll)
		if err != nil {
			return watchReport{}, err
		}
		poll = d
	}
	// The URL serve is given, pool_max_conns and all (store.ParseURL
	// leaves the server only what it understands).
	target, err := store.ParseURL(cfg.DatabaseURL)
	if err != nil {
		return watchReport{}, err
	}
	if target.Dialect != store.Postgres {
		return watchReport{}, fmt.Errorf("watch: %s: want a PostgreSQL URL", target.Redacted)
	}
	conn, err := pgx.Connect(ctx, target.DSN)
	if err != nil {
		return watchReport{}, err
	}
	defer conn.Close(context.Background())
	start := time.Now()
	readRole := func() (string, error) {
		var role string
		err := conn.QueryRow(ctx, "SELECT role FROM memberships WHERE user_id = $1 AND organization_id = $2", cfg.UserID, cfg.OrgID).Scan(&role)
		if errors.Is(err, pgx.ErrNoRows) {
			return "", nil
		}
		return role, err
	}
	role, err := readRole()
	if err != nil {
		return watchReport{}, err
	}
	changes := []roleChange{{at: 0, role: role}}
	polls := 1

	answers := make([][]answer, len(cfg.Streams))
	var mu sync.Mutex
	var started sync.WaitGroup
	var wg sync.WaitGroup
	for i, s := range cfg.Streams {
		workers := max(s.Workers, 1)
		client := newClient(workers)
		snd := newSender(call{URL: s.URL, Token: s.Token, Method: s.Method, Tool: s.Tool, Args: s.Args, Protocol: s.Protocol}, client)
		started.Add(1)
		var once sync.Once
		for range workers {
			wg.Go(func() {
				var mine []answer
				for ctx.Err() == nil {
					sent := time.Since(start)
					_, err := snd.send()
					if ctx.Err() != nil {
						break // cut short by the end, not an answer
					}
					a := answer{sent: sent, answered: time.Since(start), ok: err == nil}
					if err != nil {
						a.err = err.Error()
					}
					mine = append(mine, a)
					once.Do(started.Done)
				}
				mu.Lock()
				answers[i] = append(answers[i], mine...)
				mu.Unlock()
			})
		}
	}
	go func() {
		started.Wait()
		if ctx.Err() == nil {
			ready()
		}
	}()
	t := time.NewTicker(poll)
	defer t.Stop()
	var pollErr error
	// A change is stamped with the start of the poll before the one that
	// saw it: its commit came after that poll's snapshot, so the stamp is
	// a lower bound of the commit and the delays measured are upper
	// bounds, by at most a poll interval and a query.
	prevStart := time.Duration(0)
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-t.C:
		}
		pollStart := time.Since(start)
		r, err := readRole()
		if ctx.Err() != nil {
			break loop
		}
		if err != nil {
			pollErr = err
			break loop
		}
		polls++
		if r != changes[len(changes)-1].role {
			changes = append(changes, roleChange{at: prevStart, role: r})
		}
		prevStart = pollStart
	}
	wg.Wait()
	rep := analyze(cfg.Streams, changes, answers)
	rep.Polls = polls
	return rep, pollErr
}

// watchMain runs the watch of a config file until SIGINT or SIGTERM and
// prints the report as JSON; "watch: ready" goes to stderr once every
// stream answers.
func watchMain(file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		fatal(err)
	}
	var cfg watchConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		fatal(fmt.Errorf("%s: %w", file, err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := runWatch(ctx, cfg, func() { fmt.Fprintln(os.Stderr, "watch: ready") })
	if err != nil {
		fatal(err)
	}
	out, _ := json.Marshal(rep)
	fmt.Println(string(out))
}
