package store

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors callers tell apart with errors.Is, the same on every engine; the
// driver's own error stays wrapped beside them for logs.
var (
	// ErrNotFound: the row is not there — or not there for this caller:
	// tenant-scoped lookups answer it for another organization's rows too,
	// so a caller cannot learn that an id exists elsewhere.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a write broke a unique constraint (the email, the
	// external id is taken) or a foreign key (the row it refers to is gone,
	// or rows still refer to the one being deleted). Concurrent writers of
	// the same unique value get it too: exactly one of them wins.
	ErrConflict = errors.New("store: conflict")
)

// PostgreSQL SQLSTATE codes (Appendix A of its manual).
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
)

// mapError puts the sentinel errors in front of the drivers' own.
func mapError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case pgUniqueViolation, pgForeignKeyViolation:
			return fmt.Errorf("%w: %w", ErrConflict, err)
		}
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		// Extended result codes are on in modernc.org/sqlite, so the code
		// says which constraint failed.
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: %w", ErrConflict, err)
		}
	}
	return err
}
