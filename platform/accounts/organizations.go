package accounts

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Organization is a tenant: it owns workspaces and everything in them, and
// people hold roles in it.
type Organization struct {
	// ID is a UUID (store.NewID); every tenant row carries it.
	ID string `db:"id"`
	// Name is the display name; it need not be unique.
	Name string `db:"name"`
	// CreatedAt is in UTC.
	CreatedAt time.Time `db:"created_at"`
}

// Workspace is a unit inside an organization (the Inbox's workspaces: each
// with its own inboxes, limits and e-mail prefix). Deleted workspaces are
// kept (deleted_at) but never returned.
type Workspace struct {
	// ID is a UUID (store.NewID).
	ID string `db:"id"`
	// OrganizationID owns the workspace and everything in it.
	OrganizationID string `db:"organization_id"`
	// ExternalID is the caller's own name for the workspace, unique among
	// the organization's live workspaces; it defaults to ID.
	ExternalID string `db:"external_id"`
	// Label is the display name.
	Label string `db:"label"`
	// EmailPrefix is kebab-case, at most 60 characters.
	EmailPrefix string `db:"email_prefix"`
	// CreatedAt is in UTC.
	CreatedAt time.Time `db:"created_at"`
}

// NewWorkspace is what CreateWorkspace needs; only Label is required.
type NewWorkspace struct {
	// ExternalID defaults to the new workspace's id.
	ExternalID string
	// Label is the display name (required).
	Label string
	// EmailPrefix defaults to the label in kebab-case.
	EmailPrefix string
}

// DefaultWorkspaceLabel is the label of the workspace every organization
// is created with, so a new tenant can be used at once.
const DefaultWorkspaceLabel = "Default"

const orgColumns = "id, name, created_at"

const workspaceColumns = "id, organization_id, external_id, label, email_prefix, created_at"

// CreateOrganization creates an organization and its default workspace
// (labelled DefaultWorkspaceLabel, its e-mail prefix from the name), in
// one transaction.
func (s *Store) CreateOrganization(ctx context.Context, name string) (Organization, error) {
	name, err := cleanText("organization name", name, maxNameRunes)
	if err != nil {
		return Organization{}, err
	}
	org := Organization{ID: store.NewID(), Name: name, CreatedAt: store.Now()}
	defer Committed()
	err = s.q.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)", org.ID, org.Name, org.CreatedAt); err != nil {
			return err
		}
		_, err := s.InTx(tx).insertWorkspace(ctx, org.ID, NewWorkspace{Label: DefaultWorkspaceLabel, EmailPrefix: slug(name)})
		return err
	})
	if err != nil {
		return Organization{}, fmt.Errorf("accounts: create organization: %w", err)
	}
	return org, nil
}

// GetOrganization returns an organization by id.
func (s *Store) GetOrganization(ctx context.Context, orgID string) (Organization, error) {
	var o Organization
	err := s.q.Get(ctx, &o, "SELECT "+orgColumns+" FROM organizations WHERE id = ?", orgID)
	return o, err
}

// ListOrganizations returns every organization, oldest first. It is the
// operator's view (the CLI, an administration page), not a tenant's: no
// caller acting for one organization should list the others.
func (s *Store) ListOrganizations(ctx context.Context) ([]Organization, error) {
	out := []Organization{}
	err := s.q.Select(ctx, &out, "SELECT "+orgColumns+" FROM organizations ORDER BY created_at, id")
	return out, err
}

// CreateWorkspace adds a workspace to an organization. A missing
// organization is store.ErrNotFound; an external id a live workspace of the
// organization already has is store.ErrConflict.
func (s *Store) CreateWorkspace(ctx context.Context, orgID string, in NewWorkspace) (Workspace, error) {
	var w Workspace
	defer Committed()
	err := s.q.WithTx(ctx, func(tx *store.Tx) error {
		a := s.InTx(tx)
		if _, err := a.GetOrganization(ctx, orgID); err != nil {
			return err
		}
		var err error
		w, err = a.insertWorkspace(ctx, orgID, in)
		return err
	})
	return w, err
}

var emailPrefixRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func (s *Store) insertWorkspace(ctx context.Context, orgID string, in NewWorkspace) (Workspace, error) {
	label, err := cleanText("workspace label", in.Label, maxNameRunes)
	if err != nil {
		return Workspace{}, err
	}
	w := Workspace{ID: store.NewID(), OrganizationID: orgID, Label: label, CreatedAt: store.Now()}
	w.ExternalID = w.ID
	if strings.TrimSpace(in.ExternalID) != "" {
		if w.ExternalID, err = cleanText("external id", in.ExternalID, maxExternalIDRunes); err != nil {
			return Workspace{}, err
		}
	}
	w.EmailPrefix = in.EmailPrefix
	if w.EmailPrefix == "" {
		w.EmailPrefix = slug(label)
	}
	if len(w.EmailPrefix) > maxEmailPrefix || !emailPrefixRE.MatchString(w.EmailPrefix) {
		return Workspace{}, fmt.Errorf("%w: e-mail prefix %q is not kebab-case of at most %d characters", ErrInvalid, w.EmailPrefix, maxEmailPrefix)
	}
	// The workspace a request picks may change (a second one makes the pick
	// explicit): the caches of that pick drop what they read (NoteChange).
	if err := NoteChange(ctx, s.q); err != nil {
		return Workspace{}, err
	}
	_, err = s.q.Exec(ctx, "INSERT INTO workspaces ("+workspaceColumns+") VALUES (?, ?, ?, ?, ?, ?)",
		w.ID, w.OrganizationID, w.ExternalID, w.Label, w.EmailPrefix, w.CreatedAt)
	return w, err
}

// GetWorkspace returns a live workspace of the organization by id. A
// workspace of another organization, or a deleted one, is store.ErrNotFound.
func (s *Store) GetWorkspace(ctx context.Context, orgID, workspaceID string) (Workspace, error) {
	var w Workspace
	err := s.q.Get(ctx, &w, "SELECT "+workspaceColumns+" FROM workspaces WHERE organization_id = ? AND id = ? AND deleted_at IS NULL", orgID, workspaceID)
	return w, err
}

// GetWorkspaceByExternalID is GetWorkspace by the caller's own id (a token
// subject, a path segment that is not ours).
func (s *Store) GetWorkspaceByExternalID(ctx context.Context, orgID, externalID string) (Workspace, error) {
	var w Workspace
	err := s.q.Get(ctx, &w, "SELECT "+workspaceColumns+" FROM workspaces WHERE organization_id = ? AND external_id = ? AND deleted_at IS NULL", orgID, externalID)
	return w, err
}

// ListWorkspaces returns the organization's live workspaces, oldest first
// (the default workspace leads).
func (s *Store) ListWorkspaces(ctx context.Context, orgID string) ([]Workspace, error) {
	out := []Workspace{}
	err := s.q.Select(ctx, &out, "SELECT "+workspaceColumns+" FROM workspaces WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at, id", orgID)
	return out, err
}

// DeleteWorkspace soft-deletes a workspace of the organization: it stops
// being found and its external id is free again; its row stays for
// retention. Another organization's workspace, or one already deleted, is
// store.ErrNotFound; the organization's last live workspace is
// ErrLastWorkspace (a store.ErrConflict): an organization always keeps one.
//
// It runs in a transaction (joining the caller's, see InTx) that first
// locks the organization's row, so two concurrent deletions of its last
// two workspaces cannot both see the other one still live.
func (s *Store) DeleteWorkspace(ctx context.Context, orgID, workspaceID string) error {
	defer Committed()
	return s.q.WithTx(ctx, func(tx *store.Tx) error {
		if err := store.ExpectOne(tx.Exec(ctx, "UPDATE organizations SET name = name WHERE id = ?", orgID)); err != nil {
			return err
		}
		var live int
		if err := tx.Get(ctx, &live, "SELECT COUNT(*) FROM workspaces WHERE organization_id = ? AND deleted_at IS NULL", orgID); err != nil {
			return err
		}
		if live <= 1 {
			var mine int
			if err := tx.Get(ctx, &mine, "SELECT COUNT(*) FROM workspaces WHERE organization_id = ? AND id = ? AND deleted_at IS NULL", orgID, workspaceID); err != nil {
				return err
			}
			if mine == 1 {
				return ErrLastWorkspace
			}
		}
		if err := NoteChange(ctx, tx); err != nil {
			return err
		}
		return store.ExpectOne(tx.Exec(ctx, "UPDATE workspaces SET deleted_at = ? WHERE organization_id = ? AND id = ? AND deleted_at IS NULL",
			store.Now(), orgID, workspaceID))
	})
}

// slug turns a name into a kebab-case e-mail prefix (Slug, at most 60
// characters); "workspace" when nothing is left.
func slug(name string) string {
	if s := Slug(name, maxEmailPrefix); s != "" {
		return s
	}
	return "workspace"
}

// Slug turns a name into kebab-case for an e-mail address part: accents
// dropped ("Açúcar" → "acucar"), ASCII letters and digits lower-cased,
// other runs of characters as one hyphen, at most max characters, "" when
// nothing is left. Workspace prefixes and the Inbox's addresses share it,
// so an address reads the same way its workspace's prefix does.
func Slug(name string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFD.String(strings.ToLower(name)) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// a combining accent of the letter before it
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= max {
			break
		}
	}
	return strings.TrimRight(b.String()[:min(b.Len(), max)], "-")
}
