package store

import (
	"time"

	"github.com/google/uuid"
)

// NewID is a new row id: a UUID version 7, stored as its 36-character text
// on every engine. Version 7 starts with the time, so ids sort roughly in
// creation order and index inserts stay at the end of the B-tree; the
// random rest makes them unguessable enough to appear in URLs.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// Now is the instant to write into a timestamp column: UTC, truncated to
// the microsecond PostgreSQL keeps, so what is written equals what is read
// back on both engines. Timestamps are always written from Go, never by a
// SQL default, because the engines disagree on what CURRENT_TIMESTAMP looks
// like.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
