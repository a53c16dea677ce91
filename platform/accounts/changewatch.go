package accounts

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kobana/kobana-mcp/platform/store"
)

// ChangeWatch tells a cache of identity and tenancy reads — the role and
// grant read of every signed-in request, the workspace a request acts on —
// whether what it read may still be trusted (docs/decisions.md, "Identity
// read cache"). A process holds one and every such cache shares it:
//
//   - a change made through this process (NoteChange … Committed) moves the
//     process Generation at once;
//   - on PostgreSQL a change made by any process sends a notice on
//     ChangeChannel with its commit; the watch's own LISTEN connection
//     counts the notices, so the other replicas see the change within the
//     notice's delivery. While that connection is down nothing may be
//     trusted (Stamp answers not ok) and once it is back everything read
//     before is stale, since notices may have been missed;
//   - no read is trusted longer than the TTL (at most DefaultTTL), which
//     bounds what no notice announces: SQL run by hand, another process on
//     the same SQLite file, a listener connection that hangs without an
//     error.
type ChangeWatch struct {
	ttl       time.Duration
	listening atomic.Bool   // reads may be trusted (always on SQLite)
	remote    atomic.Uint64 // notices received, and listener restarts
	done      chan struct{}
	cancel    context.CancelFunc
}

// DefaultTTL is the longest a cached identity or tenancy read is trusted.
const DefaultTTL = time.Second

// ListenerName is the application_name of the watch's LISTEN connection.
const ListenerName = "kobana-mcp identity listener"

// Stamp is when a read was made, in the watch's terms: taken before the
// read, so a change that commits while the read runs makes it stale.
type Stamp struct {
	local, remote uint64
	at            time.Time
	ok            bool
}

// OK reports whether a read made at this stamp may be kept at all (false
// while the PostgreSQL listener is down).
func (s Stamp) OK() bool { return s.ok }

// NewChangeWatch watches db's changes. On PostgreSQL it opens one
// connection of its own for LISTEN, until ctx ends or Close. ttl ≤ 0, or
// above DefaultTTL, is DefaultTTL.
func NewChangeWatch(ctx context.Context, db *store.DB, ttl time.Duration) *ChangeWatch {
	w := &ChangeWatch{ttl: ttl, done: make(chan struct{})}
	if w.ttl <= 0 || w.ttl > DefaultTTL {
		w.ttl = DefaultTTL
	}
	cfg := db.PostgresConfig()
	if cfg == nil {
		// SQLite: one process by design; its changes move the generation,
		// anything else is bounded by the TTL.
		w.listening.Store(true)
		close(w.done)
		w.cancel = func() {}
		return w
	}
	ctx, w.cancel = context.WithCancel(ctx)
	go w.listen(ctx, cfg)
	return w
}

// Close stops the listener and waits for it.
func (w *ChangeWatch) Close() {
	w.cancel()
	<-w.done
}

// TTL is how long a read is trusted at most.
func (w *ChangeWatch) TTL() time.Duration { return w.ttl }

// Listening reports whether reads may be trusted now: always on SQLite,
// while the LISTEN connection is up on PostgreSQL.
func (w *ChangeWatch) Listening() bool { return w.listening.Load() }

// Stamp is taken before a read whose answer a cache keeps.
func (w *ChangeWatch) Stamp(now time.Time) Stamp {
	return Stamp{local: Generation(), remote: w.remote.Load(), at: now, ok: w.listening.Load()}
}

// Fresh reports whether a read made at s may still be trusted at now:
// nothing changed through this process nor was announced since, the
// listener has stayed up, and the TTL has not passed.
func (w *ChangeWatch) Fresh(s Stamp, now time.Time) bool {
	return s.ok && w.listening.Load() && s.local == Generation() && s.remote == w.remote.Load() &&
		now.Sub(s.at) < w.ttl && !now.Before(s.at)
}

func (w *ChangeWatch) listen(ctx context.Context, cfg *pgx.ConnConfig) {
	defer close(w.done)
	cfg.RuntimeParams["application_name"] = ListenerName
	wait := 50 * time.Millisecond
	for ctx.Err() == nil {
		if w.listenOnce(ctx, cfg) {
			wait = 50 * time.Millisecond
		}
		w.listening.Store(false)
		w.remote.Add(1)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// listenOnce holds one LISTEN connection until it fails; it reports
// whether it was listening.
func (w *ChangeWatch) listenOnce(ctx context.Context, cfg *pgx.ConnConfig) bool {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var channel string
	if err := conn.QueryRow(ctx, "SELECT "+ChangeChannel).Scan(&channel); err != nil {
		return false
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return false
	}
	// Notices sent before LISTEN were missed: what was read before is
	// stale, then reads may be trusted again.
	w.remote.Add(1)
	w.listening.Store(true)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			w.listening.Store(false)
			return true
		}
		w.remote.Add(1)
	}
}
