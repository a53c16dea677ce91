package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// connectWait is how long a new PostgreSQL connection keeps trying while
// the server answers that it has too many clients.
const connectWait = 10 * time.Second

// waitingConnector opens PostgreSQL connections, trying again for up to
// wait (within the caller's context) while the server refuses them with
// SQLSTATE 53300, too_many_connections. A server at its max_connections
// is a moment more often than a state: replicas overlapping during a
// deploy, a burst that other pools are about to give back. Waiting for a
// free slot turns that moment into latency instead of failing every query
// that needed a new connection, and a process's start (its migrations
// included) rides it out. Any other refusal — a wrong password, an
// unknown database, a server that is down — fails at once.
type waitingConnector struct {
	driver.Connector
	wait time.Duration
}

func (c waitingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	deadline := time.Now().Add(c.wait)
	delay := 20 * time.Millisecond
	for {
		conn, err := c.Connector.Connect(ctx)
		if err == nil || !tooManyClients(err) {
			return conn, err
		}
		// Jittered, so the processes refused together do not come back
		// together.
		sleep := delay/2 + rand.N(delay)
		if time.Now().Add(sleep).After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(sleep):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

// tooManyClients reports whether err is the server's refusal of a new
// connection for its connection limit (or a role's CONNECTION LIMIT, the
// same SQLSTATE).
func tooManyClients(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "53300"
}
