package inbox

import (
	"context"
	"encoding/base64"
	"errors"
	"sort"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// workspaceJSON is a workspace as the API shows it.
type workspaceJSON struct {
	ID          string    `json:"id"`
	ExternalID  string    `json:"external_id"`
	Label       string    `json:"label"`
	EmailPrefix string    `json:"email_prefix"`
	CreatedAt   time.Time `json:"created_at"`
}

func toWorkspaceJSON(w accounts.Workspace) workspaceJSON {
	return workspaceJSON{ID: w.ID, ExternalID: w.ExternalID, Label: w.Label, EmailPrefix: w.EmailPrefix, CreatedAt: w.CreatedAt}
}

type listWorkspacesIn struct {
	Limit  int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many workspaces per page (1-200, default 50)."`
	Cursor string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type getWorkspaceIn struct {
	ID string `json:"id" in:"path" jsonschema:"The workspace's id or external_id."`
}

func readOnly() mcp.ToolAnnotations {
	return mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
}

var workspacesScope = mcp.Requirement{Scopes: []string{"inbox.workspaces"}, Permission: identity.PermRead}

// registerWorkspaces declares the workspace read operations. Every query is
// scoped by the caller's organization; another organization's workspace is
// 404, never 403.
func registerWorkspaces(api *rest.API, acc *accounts.Store) {
	rest.Handle(api, rest.Operation{
		ID: "workspaces_list", Method: "GET", Path: "/workspaces", Tags: []string{"workspaces"},
		Title: "List workspaces", Summary: "Lists the organization's workspaces, oldest first, with cursor pagination.",
		Requires: workspacesScope, Annotations: readOnly(),
	}, func(ctx context.Context, in *listWorkspacesIn) (*rest.Response, error) {
		id := identity.From(ctx)
		if id == nil {
			return nil, rest.Forbidden("no identity")
		}
		all, err := acc.ListWorkspaces(ctx, id.OrganizationID)
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
			data = append(data, toWorkspaceJSON(w))
		}
		var next *string
		if end < len(all) {
			c := base64.RawURLEncoding.EncodeToString([]byte(all[end-1].ID))
			next = &c
		}
		return rest.OK(map[string]any{"data": data, "meta": map[string]any{"next_cursor": next}}), nil
	})
	rest.Handle(api, rest.Operation{
		ID: "workspaces_get", Method: "GET", Path: "/workspaces/{id}", Tags: []string{"workspaces"},
		Title: "Get a workspace", Summary: "Gets one workspace of the organization by id or external_id.",
		Requires: workspacesScope, Annotations: readOnly(),
	}, func(ctx context.Context, in *getWorkspaceIn) (*rest.Response, error) {
		id := identity.From(ctx)
		if id == nil {
			return nil, rest.Forbidden("no identity")
		}
		w, err := acc.GetWorkspace(ctx, id.OrganizationID, in.ID)
		if errors.Is(err, store.ErrNotFound) {
			w, err = acc.GetWorkspaceByExternalID(ctx, id.OrganizationID, in.ID)
		}
		if errors.Is(err, store.ErrNotFound) {
			return nil, rest.NotFound("workspace")
		}
		if err != nil {
			return nil, err
		}
		return rest.OK(map[string]any{"data": toWorkspaceJSON(w)}), nil
	})
}
