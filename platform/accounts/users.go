package accounts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/address"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// User is a person who signs in. The password hash never leaves this
// package.
type User struct {
	// ID is a UUID (store.NewID); tokens name the person by it.
	ID string `db:"id"`
	// Email is the sign-in name, lower-cased; unique whatever its case.
	Email string `db:"email"`
	// Name is the display name.
	Name string `db:"name"`
	// CreatedAt is in UTC.
	CreatedAt time.Time `db:"created_at"`
}

// NewUser is what CreateUser needs.
type NewUser struct {
	// Email is the sign-in name (required), stored lower-cased.
	Email string
	// Name defaults to the part of Email before the @.
	Name string
	// Password, when set, lets the user sign in with it; empty leaves the
	// user without password sign-in until SetPassword.
	Password string
	// OrganizationID, when set, makes the user a member with Role in the
	// same transaction, so no user is left half-created.
	OrganizationID string
	// Role is the role in OrganizationID (required with it).
	Role identity.Role
}

// Membership is a person's role in one organization.
type Membership struct {
	// UserID is the person.
	UserID string `db:"user_id"`
	// OrganizationID is the organization they belong to.
	OrganizationID string `db:"organization_id"`
	// OrganizationName is its name, to show beside the role.
	OrganizationName string `db:"organization_name"`
	// Role is what they may do there (identity.Role.Allows).
	Role identity.Role `db:"role"`
	// CreatedAt is when they joined, in UTC.
	CreatedAt time.Time `db:"created_at"`
}

const userColumns = "id, email, name, created_at"

// userRow is a user with its hash, for VerifyPassword only.
type userRow struct {
	User
	PasswordHash *string `db:"password_hash"` // nil: no password sign-in
}

// NormalizeEmail is the form emails are stored and looked up in: trimmed,
// an internationalised domain in its ASCII form (platform/address), and
// lower-cased. Lower-casing in Go, not SQL, makes both engines agree on
// addresses beyond ASCII. What is not an address is only trimmed and
// lower-cased, so a look-up of it finds nothing rather than failing.
func NormalizeEmail(email string) string {
	if a, err := address.ParseEmail(email); err == nil {
		return strings.ToLower(a)
	}
	return strings.ToLower(strings.TrimSpace(email))
}

// validateEmail accepts what platform/address accepts — the one parser of
// every product, so a user's sign-in name is an address Dunning and Kadu
// would also send to — and returns it normalised.
func validateEmail(email string) (string, error) {
	a, err := address.ParseEmail(email)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w", ErrInvalid, email, err)
	}
	return strings.ToLower(a), nil
}

func validateRole(r identity.Role) error {
	if !r.Valid() {
		return fmt.Errorf("%w: unknown role %q (want one of %v)", ErrInvalid, r, identity.Roles)
	}
	return nil
}

// CreateUser creates a user, and its membership when in.OrganizationID is
// set. An email already taken, in any case, is store.ErrConflict — also
// when two requests race for it: exactly one wins. A missing organization
// is store.ErrNotFound.
func (s *Store) CreateUser(ctx context.Context, in NewUser) (User, error) {
	email, err := validateEmail(in.Email)
	if err != nil {
		return User{}, err
	}
	name := in.Name
	if strings.TrimSpace(name) == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	if name, err = cleanText("name", name, maxNameRunes); err != nil {
		return User{}, err
	}
	if in.OrganizationID != "" {
		if err := validateRole(in.Role); err != nil {
			return User{}, err
		}
	}
	var hash *string
	if in.Password != "" {
		if err := validatePassword(in.Password); err != nil {
			return User{}, err
		}
		// Hash before the transaction: it takes tens of milliseconds that
		// no lock should be held for.
		h := HashPassword(in.Password, s.params)
		hash = &h
	}
	u := User{ID: store.NewID(), Email: email, Name: name, CreatedAt: store.Now()}
	err = s.q.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO users (id, email, password_hash, name, created_at) VALUES (?, ?, ?, ?, ?)",
			u.ID, u.Email, hash, u.Name, u.CreatedAt); err != nil {
			return err
		}
		if in.OrganizationID == "" {
			return nil
		}
		return s.InTx(tx).SetRole(ctx, in.OrganizationID, u.ID, in.Role)
	})
	if err != nil {
		return User{}, fmt.Errorf("accounts: create user %s: %w", email, err)
	}
	return u, nil
}

// GetUser returns a user by id.
func (s *Store) GetUser(ctx context.Context, userID string) (User, error) {
	var u User
	err := s.q.Get(ctx, &u, "SELECT "+userColumns+" FROM users WHERE id = ?", userID)
	return u, err
}

// GetUserByEmail returns the user with an email, whatever its case.
func (s *Store) GetUserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := s.q.Get(ctx, &u, "SELECT "+userColumns+" FROM users WHERE lower(email) = ?", NormalizeEmail(email))
	return u, err
}

// SetPassword replaces a user's password (at least 8 characters).
func (s *Store) SetPassword(ctx context.Context, userID, password string) error {
	if err := validatePassword(password); err != nil {
		return err
	}
	hash := HashPassword(password, s.params)
	return store.ExpectOne(s.q.Exec(ctx, "UPDATE users SET password_hash = ? WHERE id = ?", hash, userID))
}

// VerifyPassword signs a person in: it returns the user whose email and
// password match, or ErrInvalidCredentials. An unknown email, a user
// without a password and a malformed email are checked against a dummy
// hash, so all of them take as long as a wrong password and the answer
// does not tell which addresses have accounts.
func (s *Store) VerifyPassword(ctx context.Context, email, password string) (User, error) {
	dummy := s.dummyHash()
	var row userRow
	err := s.q.Get(ctx, &row, "SELECT "+userColumns+", password_hash FROM users WHERE lower(email) = ?", NormalizeEmail(email))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return User{}, err
	}
	if err != nil || row.PasswordHash == nil {
		_, _ = CheckPassword(dummy, password)
		return User{}, ErrInvalidCredentials
	}
	ok, err := CheckPassword(*row.PasswordHash, password)
	if err != nil {
		return User{}, fmt.Errorf("accounts: password of user %s: %w", row.ID, err)
	}
	if !ok {
		return User{}, ErrInvalidCredentials
	}
	return row.User, nil
}

// SetRole makes the user a member of the organization with role, or
// changes the role they hold. Either missing is store.ErrNotFound; taking
// the owner role from the organization's last owner is ErrLastOwner.
//
// The last-owner check reads, then writes: two concurrent demotions of the
// only two owners on PostgreSQL could both pass it.
func (s *Store) SetRole(ctx context.Context, orgID, userID string, role identity.Role) error {
	if err := validateRole(role); err != nil {
		return err
	}
	defer Committed()
	return s.q.WithTx(ctx, func(tx *store.Tx) error {
		a := s.InTx(tx)
		if _, err := a.GetOrganization(ctx, orgID); err != nil {
			return fmt.Errorf("organization %s: %w", orgID, err)
		}
		if _, err := a.GetUser(ctx, userID); err != nil {
			return fmt.Errorf("user %s: %w", userID, err)
		}
		if role != identity.RoleOwner {
			cur, err := a.GetMembership(ctx, orgID, userID)
			if err == nil && cur.Role == identity.RoleOwner {
				var owners int
				if err := tx.Get(ctx, &owners, "SELECT COUNT(*) FROM memberships WHERE organization_id = ? AND role = ?", orgID, string(identity.RoleOwner)); err != nil {
					return err
				}
				if owners <= 1 {
					return ErrLastOwner
				}
			} else if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if err := NoteChange(ctx, tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO memberships (user_id, organization_id, role, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (user_id, organization_id) DO UPDATE SET role = excluded.role`,
			userID, orgID, string(role), store.Now())
		return err
	})
}

// RemoveMember takes the person out of the organization: their tokens for
// it are refused from the next request on (NoteChange). Either missing is
// store.ErrNotFound; removing the organization's last owner is
// ErrLastOwner.
func (s *Store) RemoveMember(ctx context.Context, orgID, userID string) error {
	defer Committed()
	return s.q.WithTx(ctx, func(tx *store.Tx) error {
		a := s.InTx(tx)
		cur, err := a.GetMembership(ctx, orgID, userID)
		if err != nil {
			return fmt.Errorf("membership of %s in %s: %w", userID, orgID, err)
		}
		if cur.Role == identity.RoleOwner {
			var owners int
			if err := tx.Get(ctx, &owners, "SELECT COUNT(*) FROM memberships WHERE organization_id = ? AND role = ?", orgID, string(identity.RoleOwner)); err != nil {
				return err
			}
			if owners <= 1 {
				return ErrLastOwner
			}
		}
		if err := NoteChange(ctx, tx); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "DELETE FROM memberships WHERE organization_id = ? AND user_id = ?", orgID, userID)
		return err
	})
}

const membershipSelect = `SELECT m.user_id, m.organization_id, o.name AS organization_name, m.role, m.created_at
	FROM memberships m JOIN organizations o ON o.id = m.organization_id`

// GetMembership returns the user's role in the organization;
// store.ErrNotFound when they are not a member.
func (s *Store) GetMembership(ctx context.Context, orgID, userID string) (Membership, error) {
	var m Membership
	err := s.q.Get(ctx, &m, membershipSelect+" WHERE m.organization_id = ? AND m.user_id = ?", orgID, userID)
	return m, err
}

// Memberships returns the organizations a user belongs to, with the role
// held in each, by organization name: what a sign-in offers to choose from.
func (s *Store) Memberships(ctx context.Context, userID string) ([]Membership, error) {
	out := []Membership{}
	err := s.q.Select(ctx, &out, membershipSelect+" WHERE m.user_id = ? ORDER BY o.name, o.id", userID)
	return out, err
}
