package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// webhookRow is a webhooks row with the columns the API never shows.
type webhookRow struct {
	Webhook
	Product        string     `db:"product"`
	SubscribedJSON string     `db:"subscribed_events"`
	SealedCreds    string     `db:"credentials"`
	SealedSecret   string     `db:"signing_secret"`
	DeletedAt      *time.Time `db:"deleted_at"`
}

const webhookColumns = `id, organization_id, workspace_id, product, external_id, scope_id, label, url, auth,
	credentials, subscribed_events, signing_secret, status, consecutive_failures, created_at, updated_at, deleted_at`

// decode fills the fields kept as JSON text.
func (r *webhookRow) decode() error {
	if err := json.Unmarshal([]byte(r.SubscribedJSON), &r.SubscribedEvents); err != nil {
		return fmt.Errorf("webhooks: webhook %s: subscribed_events: %w", r.ID, err)
	}
	return nil
}

// Context strings bind a sealed value to its row and column.
func credsContext(id string) string  { return "credentials:" + id }
func secretContext(id string) string { return "signing_secret:" + id }

// credentials opens the webhook's stored credentials.
func (s *Service) credentials(r *webhookRow) (Credentials, error) {
	plain, err := s.unseal(r.SealedCreds, credsContext(r.ID))
	if err != nil || plain == "" {
		return Credentials{}, err
	}
	var c storedCredentials
	if err := json.Unmarshal([]byte(plain), &c); err != nil {
		return Credentials{}, fmt.Errorf("webhooks: webhook %s: credentials: %w", r.ID, err)
	}
	return Credentials(c), nil
}

// storedCredentials is Credentials as stored (JSON, snake_case).
type storedCredentials struct {
	Username    string `json:"username,omitempty"`
	Password    string `json:"password,omitempty"`
	Token       string `json:"token,omitempty"`
	HeaderName  string `json:"header_name,omitempty"`
	HeaderValue string `json:"header_value,omitempty"`
}

// sealCredentials is the credentials column's value for c.
func (s *Service) sealCredentials(id, auth string, c Credentials) string {
	if auth == AuthNone {
		return ""
	}
	b, _ := json.Marshal(storedCredentials(c))
	return s.seal(string(b), credsContext(id))
}

// Create stores a webhook and returns it with its signing secret, which is
// shown only here and by RotateSecret. A workspace outside the
// organization is store.ErrNotFound; an external id a live webhook of the
// workspace already has is store.ErrConflict.
func (s *Service) Create(ctx context.Context, in NewWebhook) (Webhook, string, error) {
	now := store.Now()
	r := webhookRow{Webhook: Webhook{
		ID: store.NewID(), OrganizationID: in.OrganizationID, WorkspaceID: in.WorkspaceID,
		Auth: in.Auth, Status: in.Status, CreatedAt: now, UpdatedAt: now,
	}, Product: s.cfg.Product}
	var err error
	if r.ExternalID, err = cleanText("external_id", in.ExternalID, maxExternalIDRunes, false); err != nil {
		return Webhook{}, "", err
	}
	if r.ExternalID == "" {
		r.ExternalID = r.ID
	}
	scope, err := cleanText("scope_id", in.ScopeID, maxExternalIDRunes, false)
	if err != nil {
		return Webhook{}, "", err
	}
	r.ScopeID = optional(scope)
	if r.Label, err = cleanText("label", in.Label, maxLabelRunes, false); err != nil {
		return Webhook{}, "", err
	}
	if r.URL, err = checkURL(in.URL, s.cfg.AllowPrivateTargets); err != nil {
		return Webhook{}, "", err
	}
	if r.Auth == "" {
		r.Auth = AuthNone
	}
	creds, err := checkCredentials(r.Auth, in.Credentials)
	if err != nil {
		return Webhook{}, "", err
	}
	if r.SubscribedEvents, err = cleanEvents(in.SubscribedEvents); err != nil {
		return Webhook{}, "", err
	}
	if r.Status == "" {
		r.Status = StatusActive
	}
	if err := checkStatus(r.Status); err != nil {
		return Webhook{}, "", err
	}
	secret := newSecret()
	events, _ := json.Marshal(r.SubscribedEvents)
	err = s.db.WithTx(ctx, func(tx *store.Tx) error {
		var one int
		if err := tx.Get(ctx, &one, `SELECT 1 FROM workspaces WHERE id = ? AND organization_id = ? AND deleted_at IS NULL`,
			r.WorkspaceID, r.OrganizationID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO webhooks (`+webhookColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, NULL)`,
			r.ID, r.OrganizationID, r.WorkspaceID, r.Product, r.ExternalID, r.ScopeID, r.Label, r.URL, r.Auth,
			s.sealCredentials(r.ID, r.Auth, creds), string(events), s.seal(secret, secretContext(r.ID)),
			r.Status, r.CreatedAt, r.UpdatedAt)
		return err
	})
	if err != nil {
		return Webhook{}, "", fmt.Errorf("webhooks: create: %w", err)
	}
	return r.Webhook, secret, nil
}

// load returns a live webhook by id or external id.
func (s *Service) load(ctx context.Context, q store.Querier, orgID, workspaceID, ref string) (webhookRow, error) {
	var r webhookRow
	if ref == "" {
		return r, store.ErrNotFound
	}
	err := q.Get(ctx, &r, `SELECT `+webhookColumns+` FROM webhooks
		WHERE organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL
		  AND (id = ? OR external_id = ?)
		ORDER BY CASE WHEN id = ? THEN 0 ELSE 1 END LIMIT 1`,
		orgID, workspaceID, s.cfg.Product, ref, ref, ref)
	if err != nil {
		return r, err
	}
	return r, r.decode()
}

// Get returns one live webhook.
func (s *Service) Get(ctx context.Context, orgID, workspaceID, ref string) (Webhook, error) {
	r, err := s.load(ctx, s.db, orgID, workspaceID, ref)
	return r.Webhook, err
}

// pageSize turns a requested limit into the one used: 50 when unset, at
// most 500.
func pageSize(limit int) int {
	switch {
	case limit <= 0:
		return 50
	case limit > 500:
		return 500
	}
	return limit
}

// List returns live webhooks (see the listing convention), optionally only
// those of a status or scope.
func (s *Service) List(ctx context.Context, orgID, workspaceID string, f ListFilter) ([]Webhook, error) {
	if f.Status != "" {
		if err := checkStatus(f.Status); err != nil {
			return nil, err
		}
	}
	q := `SELECT ` + webhookColumns + ` FROM webhooks
		WHERE organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL`
	args := []any{orgID, workspaceID, s.cfg.Product}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, f.Status)
	}
	if f.ScopeID != "" {
		q += ` AND scope_id = ?`
		args = append(args, f.ScopeID)
	}
	if f.After != "" {
		q += ` AND id > ?`
		args = append(args, f.After)
	}
	q += ` ORDER BY id LIMIT ?`
	args = append(args, pageSize(f.Limit)+1)
	var rows []webhookRow
	if err := s.db.Select(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]Webhook, 0, len(rows))
	for i := range rows {
		if err := rows[i].decode(); err != nil {
			return nil, err
		}
		out = append(out, rows[i].Webhook)
	}
	return out, nil
}

// Update applies a patch and returns the webhook as it is now. Changing
// auth to basic, bearer or header needs the new credentials with it;
// credentials alone are checked against the current auth.
func (s *Service) Update(ctx context.Context, orgID, workspaceID, ref string, p WebhookPatch) (Webhook, error) {
	var out Webhook
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		r, err := s.load(ctx, tx, orgID, workspaceID, ref)
		if err != nil {
			return err
		}
		if p.Label != nil {
			if r.Label, err = cleanText("label", *p.Label, maxLabelRunes, false); err != nil {
				return err
			}
		}
		if p.URL != nil {
			if r.URL, err = checkURL(*p.URL, s.cfg.AllowPrivateTargets); err != nil {
				return err
			}
		}
		if p.Status != nil {
			if err := checkStatus(*p.Status); err != nil {
				return err
			}
			r.Status = *p.Status
		}
		if p.ScopeID != nil {
			scope, err := cleanText("scope_id", *p.ScopeID, maxExternalIDRunes, false)
			if err != nil {
				return err
			}
			r.ScopeID = optional(scope)
		}
		if p.SubscribedEvents != nil {
			if r.SubscribedEvents, err = cleanEvents(p.SubscribedEvents); err != nil {
				return err
			}
		}
		creds := r.SealedCreds
		if p.Auth != nil || p.Credentials != nil {
			auth := r.Auth
			if p.Auth != nil {
				auth = *p.Auth
			}
			var given Credentials
			switch {
			case p.Credentials != nil:
				given = *p.Credentials
			case auth == r.Auth:
				if given, err = s.credentials(&r); err != nil {
					return err
				}
			case auth == AuthBasic || auth == AuthBearer || auth == AuthHeader:
				return invalid("credentials", "changing auth to %s needs its credentials", auth)
			}
			c, err := checkCredentials(auth, given)
			if err != nil {
				return err
			}
			r.Auth = auth
			creds = s.sealCredentials(r.ID, auth, c)
		}
		events, _ := json.Marshal(r.SubscribedEvents)
		r.UpdatedAt = store.Now()
		out = r.Webhook
		return store.ExpectOne(tx.Exec(ctx, `UPDATE webhooks SET label = ?, url = ?, status = ?, scope_id = ?, subscribed_events = ?,
			auth = ?, credentials = ?, updated_at = ?
			WHERE id = ? AND organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL`,
			r.Label, r.URL, r.Status, r.ScopeID, string(events), r.Auth, creds, r.UpdatedAt,
			r.ID, orgID, workspaceID, s.cfg.Product))
	})
	return out, err
}

// Delete soft-deletes a webhook: it stops receiving events at once, and
// its pending deliveries fail when their job runs.
func (s *Service) Delete(ctx context.Context, orgID, workspaceID, ref string) error {
	return s.db.WithTx(ctx, func(tx *store.Tx) error {
		r, err := s.load(ctx, tx, orgID, workspaceID, ref)
		if err != nil {
			return err
		}
		now := store.Now()
		return store.ExpectOne(tx.Exec(ctx, `UPDATE webhooks SET deleted_at = ?, updated_at = ?
			WHERE id = ? AND organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL`,
			now, now, r.ID, orgID, workspaceID, s.cfg.Product))
	})
}

// RotateSecret replaces the signing secret and returns the new one. Every
// attempt from now on, retries of earlier events included, is signed with
// it; with Config.RotationGrace the old one signs beside it until the
// grace ends (rotation.go), else it stops verifying at once.
func (s *Service) RotateSecret(ctx context.Context, orgID, workspaceID, ref string) (string, error) {
	secret := newSecret()
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		r, err := s.load(ctx, tx, orgID, workspaceID, ref)
		if err != nil {
			return err
		}
		now := store.Now()
		stored := secret
		if s.cfg.RotationGrace > 0 {
			plain, err := s.unseal(r.SealedSecret, secretContext(r.ID))
			if err != nil {
				return err
			}
			cur, _ := parseSecrets(plain, now)
			stored = joinSecrets(secret, cur, now.Add(s.cfg.RotationGrace))
		}
		return store.ExpectOne(tx.Exec(ctx, `UPDATE webhooks SET signing_secret = ?, updated_at = ?
			WHERE id = ? AND organization_id = ? AND workspace_id = ? AND product = ? AND deleted_at IS NULL`,
			s.seal(stored, secretContext(r.ID)), now, r.ID, orgID, workspaceID, s.cfg.Product))
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}
