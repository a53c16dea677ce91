// Package sqlstore keeps the authorization server's state in the project's
// database (platform/store: SQLite embedded, PostgreSQL for replicas), in
// the tables of migrations 00020_oauth_server.sql and
// 00070_oauth_revoked_grants.sql, adapts platform/accounts to the server's
// Accounts, and gives the resource servers their role lookup (RoleLookup),
// which also refuses tokens of revoked grants.
package sqlstore

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Store implements server.Storage on a database.
type Store struct {
	db *store.DB
	// x is the same pool seen through sqlx, for the transactions fosite
	// opens and closes in separate calls (store.DB only offers WithTx).
	x *sqlx.DB
}

var _ server.Storage = (*Store)(nil)

// New returns the store on db, which must be migrated.
func New(db *store.DB) *Store {
	driver := "sqlite"
	if db.Dialect() == store.Postgres {
		driver = "pgx"
	}
	return &Store{db: db, x: sqlx.NewDb(db.SQL(), driver)}
}

// querier is what the methods need of a *store.DB or a transaction.
type querier interface {
	Get(ctx context.Context, dest any, query string, args ...any) error
	Select(ctx context.Context, dest any, query string, args ...any) error
	Exec(ctx context.Context, query string, args ...any) (sql.Result, error)
}

type txKey struct{}

// txQuerier runs queries in a transaction BeginTx opened, with the
// placeholders and errors store.DB would give.
type txQuerier struct{ tx *sqlx.Tx }

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return server.ErrNotFound
	}
	return err
}

func (t txQuerier) Get(ctx context.Context, dest any, q string, args ...any) error {
	return notFound(t.tx.GetContext(ctx, dest, t.tx.Rebind(q), args...))
}

func (t txQuerier) Select(ctx context.Context, dest any, q string, args ...any) error {
	return t.tx.SelectContext(ctx, dest, t.tx.Rebind(q), args...)
}

func (t txQuerier) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, t.tx.Rebind(q), args...)
}

// dbQuerier maps store.ErrNotFound to server.ErrNotFound.
type dbQuerier struct{ db *store.DB }

func (d dbQuerier) Get(ctx context.Context, dest any, q string, args ...any) error {
	err := d.db.Get(ctx, dest, q, args...)
	if errors.Is(err, store.ErrNotFound) {
		return server.ErrNotFound
	}
	return err
}

func (d dbQuerier) Select(ctx context.Context, dest any, q string, args ...any) error {
	return d.db.Select(ctx, dest, q, args...)
}

func (d dbQuerier) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return d.db.Exec(ctx, q, args...)
}

func (s *Store) q(ctx context.Context) querier {
	if tx, ok := ctx.Value(txKey{}).(*sqlx.Tx); ok {
		return txQuerier{tx}
	}
	return dbQuerier{s.db}
}

// BeginTx implements server.Storage.
func (s *Store) BeginTx(ctx context.Context) (context.Context, error) {
	if _, ok := ctx.Value(txKey{}).(*sqlx.Tx); ok {
		return ctx, errors.New("sqlstore: a transaction is already open")
	}
	tx, err := s.x.BeginTxx(ctx, nil)
	if err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, txKey{}, tx), nil
}

// Commit implements server.Storage.
func (s *Store) Commit(ctx context.Context) error {
	tx, ok := ctx.Value(txKey{}).(*sqlx.Tx)
	if !ok {
		return errors.New("sqlstore: no transaction to commit")
	}
	// A grant revoked in this transaction is announced with the commit;
	// this replica's cached identity reads are dropped once it is done.
	defer accounts.Committed()
	return tx.Commit()
}

// noteChange is accounts.NoteChange over the store's own querier.
func (s *Store) noteChange(ctx context.Context) error {
	accounts.Committed()
	if s.db.Dialect() != store.Postgres {
		return nil
	}
	_, err := s.q(ctx).Exec(ctx, "SELECT pg_notify("+accounts.ChangeChannel+", '')")
	return err
}

// Rollback implements server.Storage.
func (s *Store) Rollback(ctx context.Context) error {
	tx, ok := ctx.Value(txKey{}).(*sqlx.Tx)
	if !ok {
		return errors.New("sqlstore: no transaction to roll back")
	}
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// ts is an instant as every timestamp column holds it.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

type recordRow struct {
	Kind      string       `db:"kind"`
	Signature string       `db:"signature"`
	RequestID string       `db:"request_id"`
	ClientID  string       `db:"client_id"`
	Subject   string       `db:"subject"`
	Data      string       `db:"data"`
	CreatedAt time.Time    `db:"created_at"`
	ExpiresAt time.Time    `db:"expires_at"`
	RevokedAt sql.NullTime `db:"revoked_at"`
}

// CreateRecord implements server.Storage.
func (s *Store) CreateRecord(ctx context.Context, r *server.Record) error {
	_, err := s.q(ctx).Exec(ctx, `INSERT INTO oauth_grant_records
		(kind, signature, request_id, client_id, subject, data, created_at, expires_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		string(r.Kind), r.Signature, r.RequestID, r.ClientID, r.Subject, string(r.Data),
		ts(r.CreatedAt), ts(r.ExpiresAt), revokedAt(r.Active))
	return err
}

func revokedAt(active bool) any {
	if active {
		return nil
	}
	return ts(time.Now())
}

// GetRecord implements server.Storage.
func (s *Store) GetRecord(ctx context.Context, kind server.Kind, signature string) (*server.Record, error) {
	var row recordRow
	if err := s.q(ctx).Get(ctx, &row, `SELECT kind, signature, request_id, client_id, subject, data, created_at, expires_at, revoked_at
		FROM oauth_grant_records WHERE kind = ? AND signature = ?`, string(kind), signature); err != nil {
		return nil, err
	}
	return &server.Record{
		Kind: server.Kind(row.Kind), Signature: row.Signature, RequestID: row.RequestID, ClientID: row.ClientID,
		Subject: row.Subject, Active: !row.RevokedAt.Valid, ExpiresAt: row.ExpiresAt, CreatedAt: row.CreatedAt,
		Data: []byte(row.Data),
	}, nil
}

// DeleteRecord implements server.Storage.
func (s *Store) DeleteRecord(ctx context.Context, kind server.Kind, signature string) error {
	_, err := s.q(ctx).Exec(ctx, "DELETE FROM oauth_grant_records WHERE kind = ? AND signature = ?", string(kind), signature)
	return err
}

// DeactivateRecord implements server.Storage.
func (s *Store) DeactivateRecord(ctx context.Context, kind server.Kind, signature string) error {
	res, err := s.q(ctx).Exec(ctx, "UPDATE oauth_grant_records SET revoked_at = ? WHERE kind = ? AND signature = ? AND revoked_at IS NULL",
		ts(time.Now()), string(kind), signature)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return server.ErrNotFound
	}
	return nil
}

// DeactivateGrant implements server.Storage.
func (s *Store) DeactivateGrant(ctx context.Context, kind server.Kind, requestID string) error {
	_, err := s.q(ctx).Exec(ctx, "UPDATE oauth_grant_records SET revoked_at = ? WHERE request_id = ? AND kind = ? AND revoked_at IS NULL",
		ts(time.Now()), requestID, string(kind))
	return err
}

// RevokeGrant implements server.Storage. The first mark stays (ON
// CONFLICT DO NOTHING, which also keeps a PostgreSQL transaction usable
// where a unique violation would abort it).
func (s *Store) RevokeGrant(ctx context.Context, requestID string, revokedAt, expiresAt time.Time) error {
	// The resource servers' cached identity read drops its entries: here
	// at once, on the other replicas when the notice arrives with the
	// commit (accounts.NoteChange, RoleCache).
	defer accounts.Committed()
	if err := s.noteChange(ctx); err != nil {
		return err
	}
	_, err := s.q(ctx).Exec(ctx, `INSERT INTO oauth_revoked_grants (grant_id, revoked_at, expires_at) VALUES (?, ?, ?)
		ON CONFLICT (grant_id) DO NOTHING`, requestID, ts(revokedAt), ts(expiresAt))
	return err
}

type clientRow struct {
	ID            string         `db:"id"`
	SecretHash    sql.NullString `db:"secret_hash"`
	Name          string         `db:"name"`
	RedirectURIs  string         `db:"redirect_uris"`
	GrantTypes    string         `db:"grant_types"`
	ResponseTypes string         `db:"response_types"`
	AuthMethod    string         `db:"token_endpoint_auth_method"`
	Metadata      string         `db:"metadata"`
	CreatedAt     time.Time      `db:"created_at"`
}

func jsonList(v []string) (string, error) {
	if v == nil {
		v = []string{}
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// CreateClient implements server.Storage.
func (s *Store) CreateClient(ctx context.Context, c *server.ClientRecord) error {
	redirects, err := jsonList(c.RedirectURIs)
	if err != nil {
		return err
	}
	grants, _ := jsonList(c.GrantTypes)
	responses, _ := jsonList(c.ResponseTypes)
	var secret any
	if c.SecretHash != nil {
		secret = hex.EncodeToString(c.SecretHash)
	}
	_, err = s.q(ctx).Exec(ctx, `INSERT INTO oauth_clients
		(id, secret_hash, name, redirect_uris, grant_types, response_types, token_endpoint_auth_method, metadata, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, secret, c.Name, redirects, grants, responses, c.TokenEndpointAuthMethod, string(c.Metadata), ts(c.CreatedAt))
	return err
}

// GetClient implements server.Storage.
func (s *Store) GetClient(ctx context.Context, id string) (*server.ClientRecord, error) {
	var row clientRow
	if err := s.q(ctx).Get(ctx, &row, `SELECT id, secret_hash, name, redirect_uris, grant_types, response_types,
		token_endpoint_auth_method, metadata, created_at FROM oauth_clients WHERE id = ?`, id); err != nil {
		return nil, err
	}
	c := &server.ClientRecord{
		ID: row.ID, Name: row.Name, TokenEndpointAuthMethod: row.AuthMethod,
		Metadata: []byte(row.Metadata), CreatedAt: row.CreatedAt,
	}
	if row.SecretHash.Valid {
		h, err := hex.DecodeString(row.SecretHash.String)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: client %s: secret hash: %w", id, err)
		}
		c.SecretHash = h
	}
	for _, f := range []struct {
		src string
		dst *[]string
	}{{row.RedirectURIs, &c.RedirectURIs}, {row.GrantTypes, &c.GrantTypes}, {row.ResponseTypes, &c.ResponseTypes}} {
		if err := json.Unmarshal([]byte(f.src), f.dst); err != nil {
			return nil, fmt.Errorf("sqlstore: client %s: %w", id, err)
		}
	}
	return c, nil
}

type sessionRow struct {
	IDHash          string         `db:"id_hash"`
	Issuer          string         `db:"issuer"`
	UserID          sql.NullString `db:"user_id"`
	Email           string         `db:"email"`
	CSRFSecret      string         `db:"csrf_secret"`
	CreatedAt       time.Time      `db:"created_at"`
	AuthenticatedAt sql.NullTime   `db:"authenticated_at"`
	ExpiresAt       time.Time      `db:"expires_at"`
}

// CreateSession implements server.Storage.
func (s *Store) CreateSession(ctx context.Context, bs *server.BrowserSession) error {
	var user, authAt any
	if bs.UserID != "" {
		user, authAt = bs.UserID, ts(bs.AuthenticatedAt)
	}
	_, err := s.q(ctx).Exec(ctx, `INSERT INTO oauth_browser_sessions
		(id_hash, issuer, user_id, email, csrf_secret, created_at, authenticated_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		bs.IDHash, bs.Issuer, user, bs.Email, hex.EncodeToString(bs.CSRFSecret), ts(bs.CreatedAt), authAt, ts(bs.ExpiresAt))
	return err
}

// GetSession implements server.Storage.
func (s *Store) GetSession(ctx context.Context, idHash string) (*server.BrowserSession, error) {
	var row sessionRow
	if err := s.q(ctx).Get(ctx, &row, `SELECT id_hash, issuer, user_id, email, csrf_secret, created_at, authenticated_at, expires_at
		FROM oauth_browser_sessions WHERE id_hash = ? AND expires_at > ?`, idHash, ts(time.Now())); err != nil {
		return nil, err
	}
	secret, err := hex.DecodeString(row.CSRFSecret)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: session secret: %w", err)
	}
	return &server.BrowserSession{
		IDHash: row.IDHash, Issuer: row.Issuer, UserID: row.UserID.String, Email: row.Email, CSRFSecret: secret,
		CreatedAt: row.CreatedAt, AuthenticatedAt: row.AuthenticatedAt.Time, ExpiresAt: row.ExpiresAt,
	}, nil
}

// DeleteSession implements server.Storage.
func (s *Store) DeleteSession(ctx context.Context, idHash string) error {
	_, err := s.q(ctx).Exec(ctx, "DELETE FROM oauth_browser_sessions WHERE id_hash = ?", idHash)
	return err
}

// PurgeExpired implements server.Storage.
func (s *Store) PurgeExpired(ctx context.Context, t time.Time) error {
	if _, err := s.q(ctx).Exec(ctx, "DELETE FROM oauth_grant_records WHERE expires_at < ?", ts(t)); err != nil {
		return err
	}
	if _, err := s.q(ctx).Exec(ctx, "DELETE FROM oauth_revoked_grants WHERE expires_at < ?", ts(t)); err != nil {
		return err
	}
	_, err := s.q(ctx).Exec(ctx, "DELETE FROM oauth_browser_sessions WHERE expires_at < ?", ts(t))
	return err
}

// Accounts adapts platform/accounts to server.Accounts.
type Accounts struct{ Store *accounts.Store }

var _ server.Accounts = Accounts{}

// VerifyPassword implements server.Accounts.
func (a Accounts) VerifyPassword(ctx context.Context, email, password string) (*server.Person, error) {
	u, err := a.Store.VerifyPassword(ctx, email, password)
	if errors.Is(err, accounts.ErrInvalidCredentials) {
		return nil, server.ErrBadCredentials
	}
	if err != nil {
		return nil, err
	}
	return &server.Person{UserID: u.ID, Email: u.Email, Name: u.Name}, nil
}

// Memberships implements server.Accounts.
func (a Accounts) Memberships(ctx context.Context, userID string) ([]server.Membership, error) {
	ms, err := a.Store.Memberships(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]server.Membership, 0, len(ms))
	for _, m := range ms {
		out = append(out, server.Membership{OrganizationID: m.OrganizationID, OrganizationName: m.OrganizationName, Role: m.Role})
	}
	return out, nil
}
