package approval

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// Status is where an approval stands. It only moves forward:
//
//	pending → approved → running → succeeded | failed
//	pending → cancelled | expired
type Status string

// The statuses of an approval.
const (
	// StatusPending: waiting for the person; nothing has run.
	StatusPending Status = "pending"
	// StatusApproved: the person chose Continuar; the run has not started.
	StatusApproved Status = "approved"
	// StatusRunning: the call is running (exactly one runner claimed it).
	StatusRunning Status = "running"
	// StatusSucceeded: the call ran and answered without an error.
	StatusSucceeded Status = "succeeded"
	// StatusFailed: the call ran and answered an error, or could not run
	// any more (the person left the organization, the run was interrupted).
	StatusFailed Status = "failed"
	// StatusCancelled: the person chose Cancelar (or the client declined
	// the link); nothing ran.
	StatusCancelled Status = "cancelled"
	// StatusExpired: nobody chose Continuar in time; nothing ran.
	StatusExpired Status = "expired"
)

// Final reports whether the approval has reached its last status.
func (s Status) Final() bool {
	switch s {
	case StatusSucceeded, StatusFailed, StatusCancelled, StatusExpired:
		return true
	}
	return false
}

// Approval is a destructive call waiting for, or decided by, the person
// who made it.
type Approval struct {
	ID             string `db:"id"`
	OrganizationID string `db:"organization_id"`
	UserID         string `db:"user_id"`
	// PrincipalHash is the hex SHA-256 of the caller's principal as the
	// MCP endpoint names it (mcp.Authorizer.Principal: issuer, subject and
	// organization), what the call's requestState is bound to.
	PrincipalHash string `db:"principal_hash"`
	// The rest of the caller's identity, to run the call as them later.
	// The access token itself is never stored.
	Issuer      string `db:"issuer"`
	Subject     string `db:"subject"`
	Email       string `db:"email"`
	ClientID    string `db:"client_id"`
	Scopes      string `db:"scopes"` // space-separated
	WorkspaceID string `db:"workspace_id"`
	Audience    string `db:"audience"`
	// Tool is the tool's name; Arguments its RFC 8785 canonical arguments.
	Tool      string `db:"tool"`
	Arguments string `db:"arguments"`
	// Message says what the call will do, naming its target.
	Message string `db:"message"`
	// Owner is "" for a destructive MCP call a client made (Continuar runs
	// the stored tool); otherwise the name of the Options.Owners handler
	// of the product that asked for the approval itself (Policy.Request),
	// which makes the call once the person decides. OwnerRef is what it is
	// about for that owner (a Kadu execution's id).
	Owner    string `db:"owner"`
	OwnerRef string `db:"owner_ref"`
	// ClientInfoName and ClientInfoVersion are the client's own name and
	// version from the call's request envelope (2026-07-28 clientInfo),
	// cleaned and bounded (cleanClientInfo); "" when it carried none.
	// Self-declared: the page shows them beside the OAuth client's
	// registered name, never instead of it.
	ClientInfoName    string `db:"client_info_name"`
	ClientInfoVersion string `db:"client_info_version"`
	Status            Status `db:"status"`
	// Result is the JSON array of the content blocks the tool answered,
	// once it ran ("" before).
	Result     string     `db:"result"`
	CreatedAt  time.Time  `db:"created_at"`
	ExpiresAt  time.Time  `db:"expires_at"`
	DecidedAt  *time.Time `db:"decided_at"`
	StartedAt  *time.Time `db:"started_at"`
	FinishedAt *time.Time `db:"finished_at"`
}

// Identity is the caller's identity as the call will run with it, without
// a role: the role is looked up again when it runs.
func (a *Approval) Identity() *identity.Identity {
	return &identity.Identity{
		Issuer: a.Issuer, Subject: a.Subject, OrganizationID: a.OrganizationID, UserID: a.UserID,
		Email: a.Email, Scopes: strings.Fields(a.Scopes), ClientID: a.ClientID,
		WorkspaceID: a.WorkspaceID, Audience: a.Audience,
	}
}

// PrincipalHash is the form principals are stored in.
func PrincipalHash(principal string) string {
	h := sha256.Sum256([]byte(principal))
	return hex.EncodeToString(h[:])
}

// Content is the tool's answer, once it ran.
func (a *Approval) Content() []mcp.Content {
	var c []mcp.Content
	if a.Result != "" {
		_ = json.Unmarshal([]byte(a.Result), &c)
	}
	return c
}

// ResultText is the text blocks of the tool's answer, joined by newlines.
func (a *Approval) ResultText() string {
	var parts []string
	for _, c := range a.Content() {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Store is the approvals table. Every change of status is one conditional
// UPDATE, so of two concurrent attempts (two clicks on Continuar, a click
// and a client's retry) exactly one changes the row.
type Store struct {
	db  store.Querier
	now func() time.Time
}

// NewStore returns the approvals of q; now replaces the clock (nil is
// time.Now).
func NewStore(q store.Querier, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: q, now: now}
}

func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

const columns = `id, organization_id, user_id, principal_hash, issuer, subject, email, client_id, scopes, workspace_id, audience,
	tool, arguments, message, status, result, created_at, expires_at, decided_at, started_at, finished_at, owner, owner_ref,
	client_info_name, client_info_version`

// Create stores a as a new pending approval; ID and CreatedAt are set
// when empty.
func (s *Store) Create(ctx context.Context, a *Approval) error {
	if a.ID == "" {
		a.ID = store.NewID()
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = s.clock()
	}
	a.CreatedAt = a.CreatedAt.UTC().Truncate(time.Microsecond)
	a.ExpiresAt = a.ExpiresAt.UTC().Truncate(time.Microsecond)
	a.Status, a.Result = StatusPending, ""
	a.ClientInfoName = cleanClientInfo(a.ClientInfoName, maxClientInfoName)
	a.ClientInfoVersion = cleanClientInfo(a.ClientInfoVersion, maxClientInfoVersion)
	_, err := s.db.Exec(ctx, `INSERT INTO approvals (`+columns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?, ?, ?)`,
		a.ID, a.OrganizationID, a.UserID, a.PrincipalHash, a.Issuer, a.Subject, a.Email, a.ClientID, a.Scopes, a.WorkspaceID, a.Audience,
		a.Tool, a.Arguments, a.Message, string(a.Status), a.Result, a.CreatedAt, a.ExpiresAt, a.Owner, a.OwnerRef,
		a.ClientInfoName, a.ClientInfoVersion)
	return err
}

// Get returns an approval by id, whoever it belongs to (callers check);
// store.ErrNotFound when there is none. A pending approval past its
// expiry is marked expired first.
func (s *Store) Get(ctx context.Context, id string) (*Approval, error) {
	if id == "" || len(id) > 64 {
		return nil, store.ErrNotFound
	}
	var a Approval
	if err := s.db.Get(ctx, &a, `SELECT `+columns+` FROM approvals WHERE id = ?`, id); err != nil {
		return nil, err
	}
	if a.Status == StatusPending && !a.ExpiresAt.After(s.clock()) {
		if _, err := s.expire(ctx, a.ID); err != nil {
			return nil, err
		}
		return s.reread(ctx, id)
	}
	return &a, nil
}

// GetInOrganization is Get scoped to an organization: another
// organization's approval is store.ErrNotFound, as if it did not exist.
func (s *Store) GetInOrganization(ctx context.Context, orgID, id string) (*Approval, error) {
	a, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if a.OrganizationID != orgID {
		return nil, store.ErrNotFound
	}
	return a, nil
}

// ForOwnerRef lists the approvals a product asked for itself about one
// thing (Owner owner, OwnerRef ref) in an organization, oldest first, each
// as Get reads it (a pending one past its expiry is marked expired): a
// Kadu execution's approvals, on its page.
func (s *Store) ForOwnerRef(ctx context.Context, orgID, owner, ref string) ([]*Approval, error) {
	var ids []string
	if err := s.db.Select(ctx, &ids, `SELECT id FROM approvals WHERE organization_id = ? AND owner = ? AND owner_ref = ?
		ORDER BY created_at, id`, orgID, owner, ref); err != nil {
		return nil, err
	}
	out := make([]*Approval, 0, len(ids))
	for _, id := range ids {
		a, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (s *Store) reread(ctx context.Context, id string) (*Approval, error) {
	var a Approval
	if err := s.db.Get(ctx, &a, `SELECT `+columns+` FROM approvals WHERE id = ?`, id); err != nil {
		return nil, err
	}
	return &a, nil
}

// changed reports whether an UPDATE changed a row.
func changed(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Approve is the person's Continuar: pending → approved, only for the
// person the approval belongs to and only before it expires. False when
// it was not pending (decided before, or expired).
func (s *Store) Approve(ctx context.Context, id, userID string) (bool, error) {
	now := s.clock()
	return changed(s.db.Exec(ctx, `UPDATE approvals SET status = 'approved', decided_at = ?
		WHERE id = ? AND user_id = ? AND status = 'pending' AND expires_at > ?`, now, id, userID, now))
}

// Cancel is Cancelar (or the client declining the link): pending →
// cancelled. False when it was not pending.
func (s *Store) Cancel(ctx context.Context, id string) (bool, error) {
	now := s.clock()
	return changed(s.db.Exec(ctx, `UPDATE approvals SET status = 'cancelled', decided_at = ?, finished_at = ?
		WHERE id = ? AND status = 'pending'`, now, now, id))
}

// Claim makes the caller the one runner of an approved call: approved →
// running. Exactly one of any number of concurrent claims gets true.
func (s *Store) Claim(ctx context.Context, id string) (bool, error) {
	return changed(s.db.Exec(ctx, `UPDATE approvals SET status = 'running', started_at = ?
		WHERE id = ? AND status = 'approved'`, s.clock(), id))
}

// Finish records the outcome of the run: running → succeeded or failed,
// with the tool's content blocks. False when it was not running (another
// process already recorded an outcome, or gave the run up as interrupted).
func (s *Store) Finish(ctx context.Context, id string, status Status, content []mcp.Content) (bool, error) {
	if status != StatusSucceeded && status != StatusFailed {
		return false, errors.New("approval: a run finishes as succeeded or failed")
	}
	if content == nil {
		content = []mcp.Content{}
	}
	body, err := json.Marshal(content)
	if err != nil {
		return false, err
	}
	return changed(s.db.Exec(ctx, `UPDATE approvals SET status = ?, result = ?, finished_at = ?
		WHERE id = ? AND status = 'running'`, string(status), string(body), s.clock(), id))
}

// expire marks a pending approval past its expiry as expired.
func (s *Store) expire(ctx context.Context, id string) (bool, error) {
	now := s.clock()
	return changed(s.db.Exec(ctx, `UPDATE approvals SET status = 'expired', finished_at = ?
		WHERE id = ? AND status = 'pending' AND expires_at <= ?`, now, id, now))
}

// Abandon gives up a run that started before startedBefore and never
// finished (its process died): running → failed, saying the outcome is
// unknown. False when it was not such a run.
func (s *Store) Abandon(ctx context.Context, id string, startedBefore time.Time, content []mcp.Content) (bool, error) {
	body, err := json.Marshal(content)
	if err != nil {
		return false, err
	}
	return changed(s.db.Exec(ctx, `UPDATE approvals SET status = 'failed', result = ?, finished_at = ?
		WHERE id = ? AND status = 'running' AND started_at < ?`, string(body), s.clock(), id, startedBefore.UTC().Truncate(time.Microsecond)))
}
