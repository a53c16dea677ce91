package sqlstore

import (
	"context"
	"errors"

	"github.com/kobana/kobana-mcp/oauth"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
)

// RoleLookup is the resource servers' oauth.RoleLookup over the database
// every replica shares. It reads the person's current role in the token's
// organization (the user id, else the subject, as external issuers may
// send only that) and, for a token of the built-in authorization server
// (one that names its grant), whether the grant was revoked, in the same
// query: the check costs the resource servers no extra round trip. Read
// through a RoleCache (as serve does), a revocation refuses the grant's
// tokens from the next request on at the replica that made it and within
// a second on the others.
//
// It answers oauth.ErrNoMembership when the person is not a member,
// oauth.ErrGrantRevoked when the grant was revoked; tokens without a grant
// (developer tokens, external issuers) get the role alone.
func RoleLookup(db store.Querier) oauth.RoleLookup {
	return func(ctx context.Context, id *identity.Identity) (identity.Role, error) {
		userID := id.UserID
		if userID == "" {
			userID = id.Subject
		}
		if id.GrantID == "" {
			var role identity.Role
			err := db.Get(ctx, &role, `SELECT role FROM memberships WHERE organization_id = ? AND user_id = ?`, id.OrganizationID, userID)
			if err != nil {
				return "", membershipError(err)
			}
			return role, nil
		}
		var row struct {
			Role    identity.Role `db:"role"`
			Revoked bool          `db:"revoked"`
		}
		err := db.Get(ctx, &row, `SELECT m.role AS role,
				EXISTS (SELECT 1 FROM oauth_revoked_grants g WHERE g.grant_id = ?) AS revoked
			FROM memberships m WHERE m.organization_id = ? AND m.user_id = ?`, id.GrantID, id.OrganizationID, userID)
		if err != nil {
			return "", membershipError(err)
		}
		if row.Revoked {
			return "", oauth.ErrGrantRevoked
		}
		return row.Role, nil
	}
}

func membershipError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return oauth.ErrNoMembership
	}
	return err
}
