package server

import (
	"context"
	"errors"
	"time"

	"github.com/kobana/kobana-mcp/platform/identity"
)

// ErrNotFound is what a Storage returns when no row matches.
var ErrNotFound = errors.New("oauth server: not found")

// Kind tells apart the grant records a Storage keeps.
type Kind string

// Kinds of grant records.
const (
	// KindCode: an authorization code, from consent to its exchange; an
	// exchanged code stays, inactive, until it expires, so a second
	// exchange is recognized and revokes what the first one issued.
	KindCode Kind = "code"
	// KindPKCE: the PKCE challenge of an authorization code.
	KindPKCE Kind = "pkce"
	// KindAccess: an access token. The token is a self-contained JWT; the
	// record only lets revocation find its grant (Storage.RevokeGrant then
	// refuses every access token of it).
	KindAccess Kind = "access"
	// KindRefresh: a refresh token. A rotated one stays, inactive, until
	// it expires: presenting it again is reuse, and revokes the grant.
	KindRefresh Kind = "refresh"
)

// Record is one stored grant record. Tokens are never stored: Signature is
// the SHA-256 of the token, so a copy of the database redeems nothing.
type Record struct {
	Kind      Kind
	Signature string
	// RequestID names the grant: the authorization and every token
	// issued from it, through any number of refreshes, share it, so
	// revocation and reuse detection reach the whole family.
	RequestID string
	ClientID  string
	// Subject is the person the grant is for.
	Subject string
	// Active is false once a code was exchanged, a refresh token rotated,
	// or the grant revoked.
	Active    bool
	ExpiresAt time.Time
	CreatedAt time.Time
	// Data is the serialized grant request (JSON, see storedRequest).
	Data []byte
}

// ClientRecord is a client registered with Dynamic Client Registration.
// Clients identified by a metadata document URL are not stored: their
// document is.
type ClientRecord struct {
	ID string
	// SecretHash is the SHA-256 of the client secret; nil for a public
	// client.
	SecretHash []byte
	Name       string
	// RedirectURIs, GrantTypes and ResponseTypes as registered.
	RedirectURIs            []string
	GrantTypes              []string
	ResponseTypes           []string
	TokenEndpointAuthMethod string
	// Metadata is the registration response, returned as registered.
	Metadata  []byte
	CreatedAt time.Time
}

// BrowserSession is a person's sign-in at one authorization server,
// referred to by a cookie. The cookie holds a random id; the row is keyed
// by its SHA-256 so the table alone lets nobody in.
type BrowserSession struct {
	IDHash string
	// Issuer is the authorization server the session belongs to: each
	// product signs its people in on its own.
	Issuer string
	// UserID is empty until the person signs in.
	UserID string
	Email  string
	// CSRFSecret keys the per-form tokens of this session.
	CSRFSecret      []byte
	CreatedAt       time.Time
	AuthenticatedAt time.Time
	ExpiresAt       time.Time
}

// Storage is what the authorization server keeps between requests, shared
// by every replica. Its methods are plain record operations; the server
// adapts them to fosite. Every method must be safe for concurrent use.
type Storage interface {
	// CreateRecord inserts a grant record.
	CreateRecord(ctx context.Context, r *Record) error
	// GetRecord returns the record, active or not; ErrNotFound if absent.
	GetRecord(ctx context.Context, kind Kind, signature string) (*Record, error)
	// DeleteRecord removes a record; removing an absent one is no error.
	DeleteRecord(ctx context.Context, kind Kind, signature string) error
	// DeactivateRecord marks an active record inactive, and returns
	// ErrNotFound when no active record matched — so of two concurrent
	// exchanges of one code or one refresh token, exactly one wins.
	DeactivateRecord(ctx context.Context, kind Kind, signature string) error
	// DeactivateGrant marks every record of the kind and grant inactive.
	DeactivateGrant(ctx context.Context, kind Kind, requestID string) error
	// RevokeGrant records that the grant was revoked at revokedAt, and
	// keeps the mark until expiresAt (past the expiry of every access
	// token issued from it). The resource servers' role lookup reads it
	// on every request, so revocation reaches access tokens, which are
	// otherwise verified without asking this server. Revoking a revoked
	// grant is no error and keeps the first mark.
	RevokeGrant(ctx context.Context, requestID string, revokedAt, expiresAt time.Time) error

	// CreateClient stores a registered client.
	CreateClient(ctx context.Context, c *ClientRecord) error
	// GetClient returns a registered client; ErrNotFound if absent.
	GetClient(ctx context.Context, id string) (*ClientRecord, error)

	// CreateSession stores a browser session.
	CreateSession(ctx context.Context, s *BrowserSession) error
	// GetSession returns an unexpired session; ErrNotFound otherwise.
	GetSession(ctx context.Context, idHash string) (*BrowserSession, error)
	// DeleteSession removes a session; removing an absent one is no error.
	DeleteSession(ctx context.Context, idHash string) error

	// PurgeExpired deletes records, revoked-grant marks and sessions that
	// expired before t.
	PurgeExpired(ctx context.Context, t time.Time) error

	// BeginTx, Commit and Rollback make the writes between them one unit
	// (fosite's storage.Transactional): the returned context carries the
	// transaction, and every method called with it joins it.
	BeginTx(ctx context.Context) (context.Context, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Person is someone who signed in.
type Person struct {
	UserID string
	Email  string
	Name   string
}

// Membership is a person's place in an organization.
type Membership struct {
	OrganizationID   string
	OrganizationName string
	Role             identity.Role
}

// ErrBadCredentials is what Accounts.VerifyPassword returns for any
// failure a person could cause: unknown email, wrong password, no password
// set. The sign-in page says the same thing for all of them.
var ErrBadCredentials = errors.New("oauth server: the email or password is incorrect")

// Accounts is who may sign in, and where they belong.
type Accounts interface {
	// VerifyPassword returns the person with that email and password, or
	// ErrBadCredentials; it should take as long for an unknown email as
	// for a wrong password.
	VerifyPassword(ctx context.Context, email, password string) (*Person, error)
	// Memberships lists the organizations the person belongs to.
	Memberships(ctx context.Context, userID string) ([]Membership, error)
}
