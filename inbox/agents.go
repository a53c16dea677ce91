package inbox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// defaultLLMModel is the model an agent gets when none is named: the
// built-in offline extractor.
const defaultLLMModel = "kobana-extractor-1"

// agentJSON is an agent as the API shows it.
type agentJSON struct {
	ID            string    `json:"id"`
	ExternalID    string    `json:"external_id"`
	WorkspaceID   string    `json:"workspace_id"`
	Label         string    `json:"label"`
	LLMModel      string    `json:"llm_model"`
	SystemMessage string    `json:"system_message"`
	SkillsRepo    *string   `json:"skills_repo"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

func toAgentJSON(a agentRecord) agentJSON {
	return agentJSON{ID: a.ID, ExternalID: a.ExternalID, WorkspaceID: a.WorkspaceID, Label: a.Label, LLMModel: a.LLMModel,
		SystemMessage: a.SystemMessage, SkillsRepo: a.SkillsRepo, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

type createAgentIn struct {
	ExternalID    string `json:"external_id,omitempty" maxLength:"255" jsonschema:"Your own id for the agent (default: its id); unique among the workspace's live agents."`
	Label         string `json:"label" minLength:"1" maxLength:"200" jsonschema:"The agent's display name."`
	LLMModel      string `json:"llm_model,omitempty" maxLength:"100" jsonschema:"The model that processes e-mail (default kobana-extractor-1, the built-in extractor)."`
	SystemMessage string `json:"system_message,omitempty" maxLength:"100000" jsonschema:"The agent's instructions."`
	SkillsRepo    string `json:"skills_repo,omitempty" maxLength:"2000" jsonschema:"An https URL of a repository of skills the agent may use."`
}

// updateAgentIn changes the fields it names; skills_repo "" removes the
// repository.
type updateAgentIn struct {
	ID            string  `json:"id" in:"path" jsonschema:"The agent's id or external_id."`
	ExternalID    *string `json:"external_id,omitempty" minLength:"1" maxLength:"255" jsonschema:"A new external_id."`
	Label         *string `json:"label,omitempty" minLength:"1" maxLength:"200" jsonschema:"A new display name."`
	LLMModel      *string `json:"llm_model,omitempty" minLength:"1" maxLength:"100" jsonschema:"A new model."`
	SystemMessage *string `json:"system_message,omitempty" maxLength:"100000" jsonschema:"New instructions."`
	SkillsRepo    *string `json:"skills_repo,omitempty" maxLength:"2000" jsonschema:"An https URL of a skills repository; \"\" removes it."`
}

type listAgentsIn struct {
	Limit  int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many agents per page (1-200, default 50)."`
	Cursor string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type agentRefIn struct {
	ID string `json:"id" in:"path" jsonschema:"The agent's id or external_id."`
}

// Permissions: reading for every role, creating and changing agents for
// members and up (identity.PermWrite), deleting for admins and owners
// (identity.PermManage).
var (
	agentsRead   = mcp.Requirement{Scopes: []string{"inbox.agents"}, Permission: identity.PermRead}
	agentsWrite  = mcp.Requirement{Scopes: []string{"inbox.agents"}, Permission: identity.PermWrite}
	agentsManage = mcp.Requirement{Scopes: []string{"inbox.agents"}, Permission: identity.PermManage}
)

// agentsAPI holds the handlers of the agent operations.
type agentsAPI struct{ *service }

// registerAgents declares the agent operations: the models and
// instructions the workspace's inboxes process e-mail with.
func registerAgents(api *rest.API, s *service) {
	h := &agentsAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "agents_list", Method: "GET", Path: "/agents", Tags: []string{"agents"},
		Title: "List agents", Summary: "Lists the workspace's agents, oldest first, with cursor pagination.",
		Requires: agentsRead, Annotations: restkit.ReadOnly(),
	}, h.list)
	rest.Handle(api, rest.Operation{
		ID: "agents_get", Method: "GET", Path: "/agents/{id}", Tags: []string{"agents"},
		Title: "Get an agent", Summary: "Gets one agent of the workspace by id or external_id.",
		Requires: agentsRead, Annotations: restkit.ReadOnly(),
	}, h.get)
	rest.Handle(api, rest.Operation{
		ID: "agents_create", Method: "POST", Path: "/agents", Tags: []string{"agents"},
		Title: "Create an agent", Summary: "Creates an agent: the model, instructions and optional skills repository an inbox's e-mail is processed with.",
		Requires: agentsWrite, Annotations: restkit.Write(false),
	}, h.create)
	rest.Handle(api, rest.Operation{
		ID: "agents_update", Method: "PATCH", Path: "/agents/{id}", Tags: []string{"agents"},
		Title: "Update an agent", Summary: "Changes the given fields of an agent; the inboxes that use it process their next e-mail with the new settings.",
		Requires: agentsWrite, Annotations: restkit.Write(true),
	}, h.update)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "agents_delete", Method: "DELETE", Path: "/agents/{id}", Tags: []string{"agents"},
		Title: "Delete an agent", Summary: "Deletes an agent by id or external_id. An agent that live inboxes use cannot be deleted (409): give them another agent first.",
		Description: "Destructive: it cannot be undone.",
		Requires:    agentsManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describeDelete, h.delete)
}

// list answers agents_list.
func (h *agentsAPI) list(ctx context.Context, in *listAgentsIn) (*rest.Response, error) {
	sc, after, err := restkit.PageScope(ctx, h.workspaceScope, in.Cursor)
	if err != nil {
		return nil, err
	}
	limit := restkit.PageLimit(in.Limit)
	rows, err := listAgents(ctx, h.db, sc.OrgID, sc.WorkspaceID, after, limit)
	if err != nil {
		return nil, err
	}
	return restkit.CursorPage(rows, limit, func(a agentRecord) string { return a.ID }, toAgentJSON), nil
}

// get answers agents_get.
func (h *agentsAPI) get(ctx context.Context, in *agentRefIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, h.workspaceScope, "agent", func(sc scope) (agentRecord, error) {
		return getAgent(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.ID)
	}, toAgentJSON)
}

// create answers agents_create.
func (h *agentsAPI) create(ctx context.Context, in *createAgentIn) (*rest.Response, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return nil, err
	}
	now := store.Now()
	a := agentRecord{ID: store.NewID(), OrganizationID: sc.OrgID, WorkspaceID: sc.WorkspaceID, ExternalID: strings.TrimSpace(in.ExternalID),
		Label: strings.TrimSpace(in.Label), LLMModel: strings.TrimSpace(in.LLMModel), SystemMessage: in.SystemMessage, CreatedAt: now, UpdatedAt: now}
	if a.ExternalID == "" {
		a.ExternalID = a.ID
	}
	if a.LLMModel == "" {
		a.LLMModel = defaultLLMModel
	}
	var bad []rest.FieldError
	if a.Label == "" {
		bad = append(bad, rest.FieldError{Field: "label", Message: "must not be blank"})
	}
	if in.SkillsRepo != "" {
		repo, msg := skillsRepo(in.SkillsRepo)
		if msg != "" {
			bad = append(bad, rest.FieldError{Field: "skills_repo", Message: msg})
		}
		a.SkillsRepo = &repo
	}
	if len(bad) > 0 {
		return nil, rest.Validation("the request is invalid", bad...)
	}
	if err := insertAgent(ctx, h.db, &a); err != nil {
		return nil, agentErr(err)
	}
	return rest.Created(map[string]any{"data": toAgentJSON(a)}), nil
}

// update answers agents_update.
func (h *agentsAPI) update(ctx context.Context, in *updateAgentIn) (*rest.Response, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return nil, err
	}
	var a agentRecord
	err = h.db.WithTx(ctx, func(tx *store.Tx) error {
		a, err = lockAgent(ctx, tx, sc.OrgID, sc.WorkspaceID, in.ID)
		if err != nil {
			return err
		}
		var bad []rest.FieldError
		if in.Label != nil {
			if a.Label = strings.TrimSpace(*in.Label); a.Label == "" {
				bad = append(bad, rest.FieldError{Field: "label", Message: "must not be blank"})
			}
		}
		if in.LLMModel != nil {
			if a.LLMModel = strings.TrimSpace(*in.LLMModel); a.LLMModel == "" {
				bad = append(bad, rest.FieldError{Field: "llm_model", Message: "must not be blank"})
			}
		}
		if in.ExternalID != nil {
			if a.ExternalID = strings.TrimSpace(*in.ExternalID); a.ExternalID == "" {
				bad = append(bad, rest.FieldError{Field: "external_id", Message: "must not be blank"})
			}
		}
		if in.SystemMessage != nil {
			a.SystemMessage = *in.SystemMessage
		}
		if in.SkillsRepo != nil {
			a.SkillsRepo = nil
			if *in.SkillsRepo != "" {
				repo, msg := skillsRepo(*in.SkillsRepo)
				if msg != "" {
					bad = append(bad, rest.FieldError{Field: "skills_repo", Message: msg})
				}
				a.SkillsRepo = &repo
			}
		}
		if len(bad) > 0 {
			return rest.Validation("the request is invalid", bad...)
		}
		a.UpdatedAt = store.Now()
		return updateAgent(ctx, tx, &a)
	})
	if err != nil {
		return nil, agentErr(err)
	}
	return rest.OK(map[string]any{"data": toAgentJSON(a)}), nil
}

// describeDelete is the confirmation agents_delete asks for.
func (h *agentsAPI) describeDelete(ctx context.Context, in *agentRefIn) (string, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return "", err
	}
	a, err := getAgent(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.ID)
	if err != nil {
		return "", agentErr(err)
	}
	n, err := inboxesUsingAgent(ctx, h.db, sc.OrgID, a.ID)
	if err != nil {
		return "", err
	}
	if n > 0 {
		return "", agentErr(errAgentInUse{inboxes: n})
	}
	return fmt.Sprintf("Delete agent '%s' (model %s)? This cannot be undone.", a.Label, a.LLMModel), nil
}

// delete answers agents_delete.
func (h *agentsAPI) delete(ctx context.Context, in *agentRefIn) (*rest.Response, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return nil, err
	}
	err = h.nonces.WithTx(ctx, func(tx *store.Tx) error {
		a, err := getAgent(ctx, tx, sc.OrgID, sc.WorkspaceID, in.ID)
		if err != nil {
			return err
		}
		return deleteAgent(ctx, tx, sc.OrgID, sc.WorkspaceID, a.ID)
	})
	if err != nil {
		return nil, agentErr(err)
	}
	return rest.NoContent(), nil
}

// skillsRepo checks a skills repository URL: absolute https with a host,
// no credentials in it (they would be shown to every reader of the agent).
func skillsRepo(raw string) (string, string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !u.IsAbs() || u.Host == "" {
		return "", "must be an absolute https URL"
	}
	if u.Scheme != "https" {
		return "", "must be an https URL"
	}
	if u.User != nil {
		return "", "must not carry credentials"
	}
	return u.String(), ""
}

// agentErr turns a store error about an agent into the API's answer.
func agentErr(err error) error {
	var inUse errAgentInUse
	switch {
	case errors.Is(err, store.ErrNotFound):
		return rest.NotFound("agent")
	case errors.Is(err, store.ErrConflict):
		return rest.Conflict("a live agent of this workspace already has this external_id")
	case errors.As(err, &inUse):
		return rest.Conflict(inUse.Error())
	}
	return err
}
