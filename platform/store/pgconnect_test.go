package store_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// A PostgreSQL URL's pool_max_conns bounds the process's connections, and
// the server never sees it (it would refuse an unknown setting).
func TestPoolMaxConns(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Engines, store.Postgres) {
		t.Skip("PostgreSQL not among the test engines")
	}
	ctx := context.Background()
	base := storetest.URL(t, store.Postgres)
	raw := storetest.WithParam(base, "pool_max_conns", "3")
	db, err := store.Open(ctx, raw)
	if err != nil {
		t.Fatalf("open with pool_max_conns: %v", err)
	}
	defer db.Close()
	if got := db.SQL().Stats().MaxOpenConnections; got != 3 {
		t.Fatalf("MaxOpenConnections = %d, want 3", got)
	}
	// Eight queries at once, each holding its connection a while: never
	// more than three open.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := db.SQL().ExecContext(ctx, "SELECT pg_sleep(0.05)")
			errs <- err
		})
	}
	peak := 0
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(5 * time.Millisecond):
		}
		peak = max(peak, db.SQL().Stats().OpenConnections)
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if peak > 3 || peak == 0 {
		t.Errorf("open connections peaked at %d, want 1 to 3", peak)
	}
	if st := db.SQL().Stats(); st.WaitCount == 0 {
		t.Errorf("eight queries on three connections: none waited (%+v)", st)
	}

	def, err := store.Open(ctx, storetest.WithParam(base, "pool_max_conns", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	if got := def.SQL().Stats().MaxOpenConnections; got != store.DefaultMaxConns {
		t.Errorf("without pool_max_conns MaxOpenConnections = %d, want %d", got, store.DefaultMaxConns)
	}
}

// limitedRole creates a login role that may hold one connection, dropped
// with the test, and returns base with that user.
func limitedRole(t *testing.T, admin *sql.DB, base string) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	role := "kobana_limited_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE ROLE " + role + " LOGIN CONNECTION LIMIT 1"); err != nil {
		t.Fatalf("create role: %v", err)
	}
	t.Cleanup(func() {
		// Its connections are closed by then (registered first, run last).
		_, _ = admin.Exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", role)
		if _, err := admin.Exec("DROP ROLE " + role); err != nil {
			t.Errorf("drop role %s: %v", role, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

// A new connection the server refuses for its connection limit (SQLSTATE
// 53300) waits for a free slot instead of failing the query; any other
// refusal fails at once.
func TestConnectWaitsForAFreeSlot(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Engines, store.Postgres) {
		t.Skip("PostgreSQL not among the test engines")
	}
	_ = storetest.URL(t, store.Postgres) // skips when the server is absent outside CI
	ctx := context.Background()
	admin, err := sql.Open("pgx", storetest.PostgresURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() }) // after the role's drop
	// CONNECTION LIMIT 1 answers a second connection with the same
	// SQLSTATE as the server's max_connections, without filling the
	// server the other tests share.
	limited := limitedRole(t, admin, storetest.PostgresURL())

	holder, err := sql.Open("pgx", limited)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	held, err := holder.Conn(ctx)
	if err != nil {
		t.Fatalf("the role's one connection: %v", err)
	}
	db, err := func() (*store.DB, error) {
		// Open pings: it must wait too, so release the slot in a while.
		time.AfterFunc(400*time.Millisecond, func() { _ = held.Close(); _ = holder.Close() })
		return store.Open(ctx, limited)
	}()
	if err != nil {
		t.Fatalf("open while the role's slot was taken for 400 ms: %v", err)
	}
	defer db.Close()
	var one int
	if err := db.SQL().QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("query after the wait: %d, %v", one, err)
	}

	// A server that refuses for another reason is not waited for.
	u, _ := url.Parse(storetest.PostgresURL())
	u.Path = "/kobana_no_such_database"
	start := time.Now()
	if _, err := store.Open(ctx, u.String()); err == nil || !strings.Contains(err.Error(), "3D000") {
		t.Fatalf("open of a missing database: %v, want SQLSTATE 3D000", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a missing database took %v to fail: waited as for a full server", d)
	}
}
