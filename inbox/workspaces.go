package inbox

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/confirm"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// workspaceJSON is a workspace as the API shows it: the organization's
// workspace (platform/accounts) with the Inbox's settings and this month's
// usage of it.
type workspaceJSON struct {
	ID                 string         `json:"id"`
	ExternalID         string         `json:"external_id"`
	Label              string         `json:"label"`
	EmailPrefix        string         `json:"email_prefix"`
	Source             string         `json:"source"`
	MonthlyCostLimit   *float64       `json:"monthly_cost_limit"`
	MonthlyCostUsed    float64        `json:"monthly_cost_used"`
	MonthlyEmailsLimit *int           `json:"monthly_emails_limit"`
	MonthlyEmailsUsed  int            `json:"monthly_emails_used"`
	CustomMetadata     map[string]any `json:"custom_metadata"`
	CreatedAt          time.Time      `json:"created_at"`
	UpdatedAt          time.Time      `json:"updated_at"`
}

func toWorkspaceJSON(w accounts.Workspace, ws workspaceSettings) workspaceJSON {
	meta := map[string]any{}
	_ = json.Unmarshal([]byte(ws.CustomMetadataJSON), &meta)
	if meta == nil {
		meta = map[string]any{}
	}
	updated := ws.UpdatedAt
	if updated.Before(w.CreatedAt) {
		updated = w.CreatedAt
	}
	return workspaceJSON{ID: w.ID, ExternalID: w.ExternalID, Label: w.Label, EmailPrefix: w.EmailPrefix,
		Source: ws.Source, MonthlyCostLimit: ws.MonthlyCostLimit, MonthlyCostUsed: math.Round(ws.MonthlyCostUsed*100) / 100,
		MonthlyEmailsLimit: ws.MonthlyEmailsLimit, MonthlyEmailsUsed: ws.MonthlyEmailsUsed,
		CustomMetadata: meta, CreatedAt: w.CreatedAt, UpdatedAt: updated}
}

type listWorkspacesIn struct {
	Limit  int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many workspaces per page (1-200, default 50)."`
	Cursor string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type getWorkspaceIn struct {
	ID string `json:"id" in:"path" jsonschema:"The workspace's id or external_id."`
}

type deleteWorkspaceIn struct {
	ID string `json:"id" in:"path" jsonschema:"The workspace's id or external_id."`
}

var workspacesScope = mcp.Requirement{Scopes: []string{"inbox.workspaces"}, Permission: identity.PermRead}

// Deleting a workspace changes the organization itself: owners only.
var workspacesOwnScope = mcp.Requirement{Scopes: []string{"inbox.workspaces"}, Permission: identity.PermOwn}

// findWorkspace resolves a path id, which may be the workspace's id or its
// external id, inside the caller's organization.
func findWorkspace(ctx context.Context, acc *accounts.Store, orgID, ref string) (accounts.Workspace, error) {
	w, err := acc.GetWorkspace(ctx, orgID, ref)
	if errors.Is(err, store.ErrNotFound) {
		w, err = acc.GetWorkspaceByExternalID(ctx, orgID, ref)
	}
	return w, err
}

// workspacesAPI holds the handlers of the workspace operations that read
// or write the Inbox's settings of a workspace: the reads here, the
// writes in workspace_writes.go. workspaces_delete needs nothing beyond
// the accounts store and the confirmations (workspaceDeleteAPI). Every
// query is scoped by the caller's organization; another organization's
// workspace is 404, never 403.
type workspacesAPI struct{ *service }

// registerWorkspaceReads declares workspaces_list and workspaces_get.
func registerWorkspaceReads(api *rest.API, s *service) {
	h := &workspacesAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "workspaces_list", Method: "GET", Path: "/workspaces", Tags: []string{"workspaces"},
		Title: "List workspaces", Summary: "Lists the organization's workspaces, oldest first, with cursor pagination, each with its Inbox settings and this month's usage.",
		Requires: workspacesScope, Annotations: restkit.ReadOnly(),
	}, h.list)
	rest.Handle(api, rest.Operation{
		ID: "workspaces_get", Method: "GET", Path: "/workspaces/{id}", Tags: []string{"workspaces"},
		Title: "Get a workspace", Summary: "Gets one workspace of the organization by id or external_id, with its Inbox settings (source, monthly limits, custom metadata) and this month's usage.",
		Requires: workspacesScope, Annotations: restkit.ReadOnly(),
	}, h.get)
}

// list answers workspaces_list.
func (h *workspacesAPI) list(ctx context.Context, in *listWorkspacesIn) (*rest.Response, error) {
	id := identity.From(ctx)
	if id == nil {
		return nil, rest.Forbidden("no identity")
	}
	all, err := h.accounts.ListWorkspaces(ctx, id.OrganizationID)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].CreatedAt.Before(all[j].CreatedAt) })
	limit := in.Limit
	if limit == 0 {
		limit = 50
	}
	start := 0
	if in.Cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		start = -1
		if err == nil {
			for i, w := range all {
				if w.ID == string(after) {
					start = i + 1
				}
			}
		}
		if start < 0 {
			return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "cursor", Message: "is not a cursor of this listing"})
		}
	}
	end := min(start+limit, len(all))
	data := make([]workspaceJSON, 0, end-start)
	for _, w := range all[start:end] {
		ws, err := readWorkspaceSettings(ctx, h.db, id.OrganizationID, w.ID)
		if err != nil {
			return nil, err
		}
		data = append(data, toWorkspaceJSON(w, ws))
	}
	var next *string
	if end < len(all) {
		c := base64.RawURLEncoding.EncodeToString([]byte(all[end-1].ID))
		next = &c
	}
	return rest.OK(map[string]any{"data": data, "meta": map[string]any{"next_cursor": next}}), nil
}

// get answers workspaces_get.
func (h *workspacesAPI) get(ctx context.Context, in *getWorkspaceIn) (*rest.Response, error) {
	id := identity.From(ctx)
	if id == nil {
		return nil, rest.Forbidden("no identity")
	}
	w, err := findWorkspace(ctx, h.accounts, id.OrganizationID, in.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, rest.NotFound("workspace")
	}
	if err != nil {
		return nil, err
	}
	ws, err := readWorkspaceSettings(ctx, h.db, id.OrganizationID, w.ID)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": toWorkspaceJSON(w, ws)}), nil
}

// errLastWorkspace is the answer to deleting the organization's only
// workspace.
var errLastWorkspace = rest.Conflict("this is the organization's only workspace, and an organization keeps at least one: create another workspace before deleting this one")

// workspaceDeleteAPI holds the handlers of workspaces_delete, which needs
// only the accounts store and the confirmations.
type workspaceDeleteAPI struct {
	acc    *accounts.Store
	nonces *confirm.Nonces
}

// registerWorkspaceDelete declares workspaces_delete, the Inbox's
// destructive workspace operation. Through MCP it runs only after the
// person confirmed a message naming the workspace (docs/decisions.md, "Confirmation");
// the confirmation is consumed in the same transaction as the deletion, so
// a replayed or concurrent second confirmation deletes nothing.
func registerWorkspaceDelete(api *rest.API, acc *accounts.Store, nonces *confirm.Nonces) {
	h := &workspaceDeleteAPI{acc: acc, nonces: nonces}
	rest.HandleConfirmed(api, rest.Operation{
		ID: "workspaces_delete", Method: "DELETE", Path: "/workspaces/{id}", Tags: []string{"workspaces"},
		Title: "Delete a workspace", Summary: "Deletes one workspace of the organization, by id or external_id: its inboxes stop receiving e-mail. The organization keeps at least one workspace (deleting the last one is a conflict).",
		Description: "Destructive: it cannot be undone. Only the organization's owners may run it.",
		Requires:    workspacesOwnScope,
		Annotations: restkit.Destructive(true),
		// The nonce is consumed in the deletion's own transaction.
		ConsumesConfirmation: true,
	}, h.describeDelete, h.delete)
}

// describeDelete names the workspace workspaces_delete is about to delete,
// and refuses the organization's last one.
func (h *workspaceDeleteAPI) describeDelete(ctx context.Context, in *deleteWorkspaceIn) (string, error) {
	id := identity.From(ctx)
	if id == nil {
		return "", rest.Forbidden("no identity")
	}
	w, err := findWorkspace(ctx, h.acc, id.OrganizationID, in.ID)
	if errors.Is(err, store.ErrNotFound) {
		return "", rest.NotFound("workspace")
	}
	if err != nil {
		return "", err
	}
	all, err := h.acc.ListWorkspaces(ctx, id.OrganizationID)
	if err != nil {
		return "", err
	}
	if len(all) <= 1 {
		return "", errLastWorkspace
	}
	return deleteMessage(w), nil
}

// delete answers workspaces_delete.
func (h *workspaceDeleteAPI) delete(ctx context.Context, in *deleteWorkspaceIn) (*rest.Response, error) {
	id := identity.From(ctx)
	if id == nil {
		return nil, rest.Forbidden("no identity")
	}
	// The caches of the workspace pick drop what they read once this
	// commits (accounts.NoteChange in DeleteWorkspace).
	defer accounts.Committed()
	err := h.nonces.WithTx(ctx, func(tx *store.Tx) error {
		a := h.acc.InTx(tx)
		w, err := findWorkspace(ctx, a, id.OrganizationID, in.ID)
		if err != nil {
			return err
		}
		return a.DeleteWorkspace(ctx, id.OrganizationID, w.ID)
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, rest.NotFound("workspace")
	case errors.Is(err, accounts.ErrLastWorkspace):
		return nil, errLastWorkspace
	case errors.Is(err, confirm.ErrReplayed):
		// Only an MCP retry can get here, and the endpoint answers it
		// -32602 whatever this says.
		return nil, rest.Conflict("this confirmation was already used")
	case err != nil:
		return nil, err
	}
	return rest.NoContent(), nil
}

// deleteMessage is the confirmation the person answers: it names the
// workspace by label and by the id they know it by.
func deleteMessage(w accounts.Workspace) string {
	ref := "external id " + w.ExternalID
	if w.ExternalID == w.ID {
		ref = "id " + w.ID
	}
	return fmt.Sprintf("Delete workspace '%s' (%s)? Its inboxes stop receiving e-mail. This cannot be undone.", w.Label, ref)
}
