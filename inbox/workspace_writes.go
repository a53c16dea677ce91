package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"unicode"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// maxMetadataBytes bounds a workspace's custom_metadata as stored JSON.
const maxMetadataBytes = 16 << 10

type createWorkspaceIn struct {
	ExternalID         string         `json:"external_id,omitempty" maxLength:"255" jsonschema:"Your own id for the workspace (default: its id); unique among the organization's live workspaces."`
	Label              string         `json:"label" minLength:"1" maxLength:"200" jsonschema:"The workspace's display name."`
	EmailPrefix        string         `json:"email_prefix,omitempty" maxLength:"60" pattern:"^[a-z0-9]+(-[a-z0-9]+)*$" jsonschema:"Kebab-case start of the workspace's generated inbox addresses (default: the label in kebab-case)."`
	Source             string         `json:"source,omitempty" enum:"kobana_app,kobana_billing,kobana_autonomous_inbox,kobana_agent,kobana_finance,kobana_legal,kobana_team" jsonschema:"The Kobana product the workspace comes from (default kobana_autonomous_inbox)."`
	MonthlyCostLimit   *float64       `json:"monthly_cost_limit,omitempty" minimum:"0" jsonschema:"The most the workspace's agents may spend in a calendar month (UTC), in BRL; no limit when omitted."`
	MonthlyEmailsLimit *int           `json:"monthly_emails_limit,omitempty" minimum:"0" jsonschema:"The most e-mails the workspace's inboxes accept in a calendar month (UTC); no limit when omitted."`
	CustomMetadata     map[string]any `json:"custom_metadata,omitempty" jsonschema:"Your own JSON object kept with the workspace (at most 16 KiB)."`
}

// updateWorkspaceIn changes the fields it names; a limit of -1 removes it,
// custom_metadata replaces the object.
type updateWorkspaceIn struct {
	ID                 string         `json:"id" in:"path" jsonschema:"The workspace's id or external_id."`
	ExternalID         *string        `json:"external_id,omitempty" minLength:"1" maxLength:"255" jsonschema:"A new external_id."`
	Label              *string        `json:"label,omitempty" minLength:"1" maxLength:"200" jsonschema:"A new display name."`
	EmailPrefix        *string        `json:"email_prefix,omitempty" maxLength:"60" pattern:"^[a-z0-9]+(-[a-z0-9]+)*$" jsonschema:"A new kebab-case prefix for addresses generated from now on (existing inboxes keep theirs)."`
	Source             *string        `json:"source,omitempty" enum:"kobana_app,kobana_billing,kobana_autonomous_inbox,kobana_agent,kobana_finance,kobana_legal,kobana_team" jsonschema:"The Kobana product the workspace comes from."`
	MonthlyCostLimit   *float64       `json:"monthly_cost_limit,omitempty" minimum:"-1" jsonschema:"The most the workspace's agents may spend in a calendar month (UTC), in BRL; -1 removes the limit."`
	MonthlyEmailsLimit *int           `json:"monthly_emails_limit,omitempty" minimum:"-1" jsonschema:"The most e-mails the workspace's inboxes accept in a calendar month (UTC); -1 removes the limit."`
	CustomMetadata     map[string]any `json:"custom_metadata,omitempty" jsonschema:"Replaces your JSON object kept with the workspace (at most 16 KiB)."`
}

// Creating a workspace or changing its limits shapes what the
// organization spends: admins and owners (identity.PermManage). Deleting
// one stays with owners (workspacesOwnScope).
var workspacesManage = mcp.Requirement{Scopes: []string{"inbox.workspaces"}, Permission: identity.PermManage}

// registerWorkspaceWrites declares workspaces_create and
// workspaces_update, which write the Inbox's settings of a workspace with
// it.
func registerWorkspaceWrites(api *rest.API, s *service) {
	h := &workspacesAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "workspaces_create", Method: "POST", Path: "/workspaces", Tags: []string{"workspaces"},
		Title: "Create a workspace", Summary: "Creates a workspace of the organization with its Inbox settings: e-mail prefix, source, monthly cost and e-mail limits, custom metadata.",
		Requires: workspacesManage, Annotations: restkit.Write(false),
	}, h.create)
	rest.Handle(api, rest.Operation{
		ID: "workspaces_update", Method: "PATCH", Path: "/workspaces/{id}", Tags: []string{"workspaces"},
		Title: "Update a workspace", Summary: "Changes the given fields of a workspace: label, external_id, e-mail prefix, source, monthly limits (-1 removes one), custom metadata.",
		Requires: workspacesManage, Annotations: restkit.Write(true),
	}, h.update)
}

// create answers workspaces_create.
func (h *workspacesAPI) create(ctx context.Context, in *createWorkspaceIn) (*rest.Response, error) {
	id := identity.From(ctx)
	if id == nil {
		return nil, rest.Forbidden("no identity")
	}
	label, bad := cleanLabel("label", in.Label)
	meta, errs := encodeMetadata(in.CustomMetadata)
	bad = append(bad, errs...)
	if len(bad) > 0 {
		return nil, rest.Validation("the request is invalid", bad...)
	}
	source := in.Source
	if source == "" {
		source = defaultSource
	}
	var w accounts.Workspace
	var ws workspaceSettings
	// The caches of the workspace pick drop what they read once this
	// commits (accounts.NoteChange in CreateWorkspace).
	defer accounts.Committed()
	err := h.db.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		w, err = h.accounts.InTx(tx).CreateWorkspace(ctx, id.OrganizationID, accounts.NewWorkspace{ExternalID: strings.TrimSpace(in.ExternalID), Label: label, EmailPrefix: in.EmailPrefix})
		if err != nil {
			return err
		}
		now := store.Now()
		ws = workspaceSettings{WorkspaceID: w.ID, OrganizationID: id.OrganizationID, Source: source, MonthlyCostLimit: cents(in.MonthlyCostLimit),
			MonthlyEmailsLimit: in.MonthlyEmailsLimit, UsageMonth: usageMonth(now), CustomMetadataJSON: meta, UpdatedAt: now}
		return insertSettings(ctx, tx, ws)
	})
	if err != nil {
		return nil, workspaceErr(err)
	}
	return rest.Created(map[string]any{"data": toWorkspaceJSON(w, ws)}), nil
}

// update answers workspaces_update.
func (h *workspacesAPI) update(ctx context.Context, in *updateWorkspaceIn) (*rest.Response, error) {
	id := identity.From(ctx)
	if id == nil {
		return nil, rest.Forbidden("no identity")
	}
	label, meta, err := checkWorkspaceUpdate(in)
	if err != nil {
		return nil, err
	}
	var w accounts.Workspace
	var ws workspaceSettings
	// A new external id changes what X-Workspace-Id picks: the caches of
	// the pick drop what they read (accounts.NoteChange).
	defer accounts.Committed()
	err = h.db.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if w, err = findWorkspace(ctx, h.accounts.InTx(tx), id.OrganizationID, in.ID); err != nil {
			return err
		}
		if err := accounts.NoteChange(ctx, tx); err != nil {
			return err
		}
		if ws, err = readWorkspaceSettings(ctx, tx, id.OrganizationID, w.ID); err != nil {
			return err
		}
		if in.Label != nil {
			w.Label = label
		}
		if in.ExternalID != nil {
			w.ExternalID = strings.TrimSpace(*in.ExternalID)
		}
		if in.EmailPrefix != nil {
			w.EmailPrefix = *in.EmailPrefix
		}
		if err := updateWorkspaceRow(ctx, tx, w); err != nil {
			return err
		}
		if in.Source != nil {
			ws.Source = *in.Source
		}
		if in.MonthlyCostLimit != nil {
			ws.MonthlyCostLimit = nil
			if *in.MonthlyCostLimit >= 0 {
				ws.MonthlyCostLimit = cents(in.MonthlyCostLimit)
			}
		}
		if in.MonthlyEmailsLimit != nil {
			ws.MonthlyEmailsLimit = clearable(*in.MonthlyEmailsLimit)
		}
		if in.CustomMetadata != nil {
			ws.CustomMetadataJSON = meta
		}
		ws.UpdatedAt = store.Now()
		return updateSettings(ctx, tx, ws)
	})
	if err != nil {
		return nil, workspaceErr(err)
	}
	return rest.OK(map[string]any{"data": toWorkspaceJSON(w, ws)}), nil
}

// checkWorkspaceUpdate validates what workspaces_update changes, every
// problem at once, and answers the cleaned label and the encoded metadata.
func checkWorkspaceUpdate(in *updateWorkspaceIn) (label, meta string, err error) {
	var bad []rest.FieldError
	if in.Label != nil {
		var errs []rest.FieldError
		label, errs = cleanLabel("label", *in.Label)
		bad = append(bad, errs...)
	}
	if in.CustomMetadata != nil {
		var errs []rest.FieldError
		meta, errs = encodeMetadata(in.CustomMetadata)
		bad = append(bad, errs...)
	}
	if in.ExternalID != nil && strings.TrimSpace(*in.ExternalID) == "" {
		bad = append(bad, rest.FieldError{Field: "external_id", Message: "must not be blank"})
	}
	if len(bad) > 0 {
		return "", "", rest.Validation("the request is invalid", bad...)
	}
	return label, meta, nil
}

// cleanLabel trims a display name and checks it is not blank and holds no
// control characters.
func cleanLabel(field, s string) (string, []rest.FieldError) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", []rest.FieldError{{Field: field, Message: "must not be blank"}}
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", []rest.FieldError{{Field: field, Message: "must not contain control characters"}}
	}
	return s, nil
}

// encodeMetadata stores custom metadata as JSON text ("{}" for none).
func encodeMetadata(m map[string]any) (string, []rest.FieldError) {
	if m == nil {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", []rest.FieldError{{Field: "custom_metadata", Message: "is not a JSON object"}}
	}
	if len(b) > maxMetadataBytes {
		return "", []rest.FieldError{{Field: "custom_metadata", Message: "must be at most 16 KiB of JSON"}}
	}
	return string(b), nil
}

// cents rounds an amount in BRL to the cent: money is rounded by the
// server, never left to clients.
func cents(v *float64) *float64 {
	if v == nil {
		return nil
	}
	r := math.Round(*v*100) / 100
	return &r
}

// workspaceErr turns a store or accounts error about a workspace into the
// API's answer.
func workspaceErr(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return rest.NotFound("workspace")
	case errors.Is(err, store.ErrConflict):
		return rest.Conflict("a live workspace of the organization already has this external_id")
	case errors.Is(err, accounts.ErrInvalid):
		return rest.Validation("the request is invalid", rest.FieldError{Field: "", Message: strings.TrimPrefix(err.Error(), "accounts: invalid input: ")})
	}
	return err
}
