package accounts

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The demo account a first start creates, so `kobana-mcp serve` can be
// signed in to without any set-up.
const (
	DemoOrganizationName = "Demo Company"
	DemoOwnerEmail       = "owner@demo.local"
	DemoOwnerName        = "Demo Owner"
)

// Demo is the sign-in EnsureDemo created. The password exists only here:
// show it once.
type Demo struct {
	// Organization is the demo organization (its default workspace exists).
	Organization Organization
	// Email is the owner's sign-in name, DemoOwnerEmail.
	Email string
	// Password is the owner's generated password, stored only as a hash.
	Password string
}

// EnsureDemo creates, in a database with no organization yet, the
// organization DemoOrganizationName with its default workspace and an owner
// DemoOwnerEmail with a random password, and returns them. Once any
// organization exists it does nothing and returns nil, so it runs at every
// start. When replicas race on an empty PostgreSQL database, the owner's
// unique email lets one create the demo; the others return nil.
func (s *Store) EnsureDemo(ctx context.Context) (*Demo, error) {
	empty, err := s.noOrganizations(ctx)
	if err != nil || !empty {
		return nil, err
	}
	demo := &Demo{Email: DemoOwnerEmail, Password: GeneratePassword()}
	err = s.q.WithTx(ctx, func(tx *store.Tx) error {
		a := s.InTx(tx)
		if empty, err := a.noOrganizations(ctx); err != nil {
			return err
		} else if !empty {
			return errNotEmpty // another replica got here first
		}
		org, err := a.CreateOrganization(ctx, DemoOrganizationName)
		if err != nil {
			return err
		}
		demo.Organization = org
		_, err = a.CreateUser(ctx, NewUser{
			Email: DemoOwnerEmail, Name: DemoOwnerName, Password: demo.Password,
			OrganizationID: org.ID, Role: identity.RoleOwner,
		})
		return err
	})
	switch {
	case err == nil:
		return demo, nil
	case errors.Is(err, errNotEmpty), errors.Is(err, store.ErrConflict):
		return nil, nil
	}
	return nil, fmt.Errorf("accounts: demo account: %w", err)
}

var errNotEmpty = errors.New("organizations exist")

func (s *Store) noOrganizations(ctx context.Context) (bool, error) {
	var one int
	err := s.q.Get(ctx, &one, "SELECT 1 FROM organizations LIMIT 1")
	if errors.Is(err, store.ErrNotFound) {
		return true, nil
	}
	return false, err
}
