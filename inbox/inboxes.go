package inbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// maxFilters bounds an inbox's screening rules: they run on every e-mail.
const maxFilters = 100

// inboxBody is what a caller sets on an inbox when creating or replacing
// it; a field left out takes its default.
type inboxBody struct {
	Label                    string        `json:"label" minLength:"1" maxLength:"200" jsonschema:"The inbox's display name; also names its generated address."`
	Email                    string        `json:"email,omitempty" maxLength:"254" jsonschema:"The receiving address, on the Inbox's mail domain. Omit it to have one generated: {workspace email_prefix}-{label}-{random}@{domain}."`
	AgentID                  string        `json:"agent_id,omitempty" maxLength:"255" jsonschema:"The agent (id or external_id) that processes this inbox's e-mail; none when omitted."`
	Status                   string        `json:"status,omitempty" enum:"active,inactive" jsonschema:"active (default) receives e-mail; inactive refuses it."`
	AllowedRecipients        []string      `json:"allowed_recipients,omitempty" jsonschema:"Senders allowed to send: addresses or @domain entries. Empty (default): anyone."`
	Filters                  []inboxFilter `json:"filters,omitempty" jsonschema:"Screening rules, applied in order; the first that matches decides."`
	AttachmentsAllow         *bool         `json:"attachments_allow,omitempty" jsonschema:"Whether e-mail may carry attachments (default true)."`
	AttachmentsMaxFileNumber *int          `json:"attachments_max_file_number,omitempty" minimum:"0" maximum:"1000" jsonschema:"At most this many attachments per e-mail; no limit when omitted."`
	AttachmentsMaxFileSize   *int64        `json:"attachments_max_file_size,omitempty" minimum:"0" jsonschema:"At most this many bytes per attachment; no limit when omitted."`
	AttachmentsMaxTotalSize  *int64        `json:"attachments_max_total_size,omitempty" minimum:"0" jsonschema:"At most this many bytes of attachments per e-mail; no limit when omitted."`
}

type createInboxIn struct {
	ExternalID string `json:"external_id,omitempty" maxLength:"255" jsonschema:"Your own id for the inbox (default: its id); unique among the workspace's live inboxes."`
	inboxBody
}

type upsertInboxIn struct {
	ExternalID string `json:"external_id" in:"path" maxLength:"255" jsonschema:"Your own id for the inbox: the one to replace, or the one a new inbox gets."`
	inboxBody
}

// updateInboxIn has no allowed_recipients: changing who may send is the
// recipients operations' job, which ask for confirmation, so this tool
// stays non-destructive. A limit of -1 removes it; agent_id "" detaches
// the agent.
type updateInboxIn struct {
	ID                       string         `json:"id" in:"path" jsonschema:"The inbox's id or external_id."`
	ExternalID               *string        `json:"external_id,omitempty" minLength:"1" maxLength:"255" jsonschema:"A new external_id."`
	Label                    *string        `json:"label,omitempty" minLength:"1" maxLength:"200" jsonschema:"A new display name."`
	Email                    *string        `json:"email,omitempty" minLength:"1" maxLength:"254" jsonschema:"A new receiving address, on the Inbox's mail domain."`
	AgentID                  *string        `json:"agent_id,omitempty" maxLength:"255" jsonschema:"The agent (id or external_id) that processes the inbox's e-mail; \"\" detaches it."`
	Status                   *string        `json:"status,omitempty" enum:"active,inactive" jsonschema:"active receives e-mail; inactive refuses it."`
	Filters                  *[]inboxFilter `json:"filters,omitempty" jsonschema:"Replaces the screening rules."`
	AttachmentsAllow         *bool          `json:"attachments_allow,omitempty" jsonschema:"Whether e-mail may carry attachments."`
	AttachmentsMaxFileNumber *int           `json:"attachments_max_file_number,omitempty" minimum:"-1" maximum:"1000" jsonschema:"At most this many attachments per e-mail; -1 removes the limit."`
	AttachmentsMaxFileSize   *int64         `json:"attachments_max_file_size,omitempty" minimum:"-1" jsonschema:"At most this many bytes per attachment; -1 removes the limit."`
	AttachmentsMaxTotalSize  *int64         `json:"attachments_max_total_size,omitempty" minimum:"-1" jsonschema:"At most this many bytes of attachments per e-mail; -1 removes the limit."`
}

type listInboxesIn struct {
	Status  string `json:"status,omitempty" in:"query" enum:"active,inactive" jsonschema:"Only inboxes in this status."`
	AgentID string `json:"agent_id,omitempty" in:"query" maxLength:"255" jsonschema:"Only inboxes processed by this agent (id or external_id)."`
	Q       string `json:"q,omitempty" in:"query" maxLength:"200" jsonschema:"Only inboxes whose label or address contains this text (case-insensitive)."`
	Limit   int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many inboxes per page (1-200, default 50)."`
	Cursor  string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type inboxRefIn struct {
	ID string `json:"id" in:"path" jsonschema:"The inbox's id or external_id."`
}

// Permissions: reading is for every role, creating and changing inboxes
// for members and up (identity.PermWrite), deleting for admins and owners
// (identity.PermManage), as the recipients operations.
var (
	inboxesRead   = mcp.Requirement{Scopes: []string{"inbox.inboxes"}, Permission: identity.PermRead}
	inboxesWrite  = mcp.Requirement{Scopes: []string{"inbox.inboxes"}, Permission: identity.PermWrite}
	inboxesManage = mcp.Requirement{Scopes: []string{"inbox.inboxes"}, Permission: identity.PermManage}
)

// inboxesAPI holds the handlers of the inbox operations, allow-list
// included (inbox_recipients.go): each is a named method, so an operation
// reads from its declaration to its store in one hop.
type inboxesAPI struct{ *service }

// registerInboxes declares the inbox operations: the receiving addresses
// of the caller's workspace.
func registerInboxes(api *rest.API, s *service) {
	h := &inboxesAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "inboxes_list", Method: "GET", Path: "/inboxes", Tags: []string{"inboxes"},
		Title: "List inboxes", Summary: "Lists the workspace's inboxes, oldest first, with cursor pagination; filters by status, agent and text in the label or address.",
		Requires: inboxesRead, Annotations: restkit.ReadOnly(),
	}, h.list)
	rest.Handle(api, rest.Operation{
		ID: "inboxes_get", Method: "GET", Path: "/inboxes/{id}", Tags: []string{"inboxes"},
		Title: "Get an inbox", Summary: "Gets one inbox of the workspace by id or external_id.",
		Requires: inboxesRead, Annotations: restkit.ReadOnly(),
	}, h.get)
	rest.Handle(api, rest.Operation{
		ID: "inboxes_create", Method: "POST", Path: "/inboxes", Tags: []string{"inboxes"},
		Title: "Create an inbox", Summary: "Creates an inbox: a receiving address on the Inbox's mail domain, generated when email is omitted, with its agent, allow-list, screening filters and attachment limits.",
		Requires: inboxesWrite, Annotations: restkit.Write(false),
	}, h.create)
	rest.Handle(api, rest.Operation{
		ID: "inboxes_upsert", Method: "PUT", Path: "/inboxes/{external_id}", Tags: []string{"inboxes"},
		Title:    "Create or replace an inbox",
		Summary:  "Creates the inbox with this external_id (201), or replaces every field of the live one that has it (200): fields left out take their defaults, except the address, which is kept. Replacing an allow-list needs the admin role.",
		Requires: inboxesWrite, Annotations: restkit.Write(true),
	}, h.upsert)
	rest.Handle(api, rest.Operation{
		ID: "inboxes_update", Method: "PATCH", Path: "/inboxes/{id}", Tags: []string{"inboxes"},
		Title:    "Update an inbox",
		Summary:  "Changes the given fields of an inbox (label, address, agent, status, filters, attachment limits); the allow-list is changed with inboxes_recipients_add and inboxes_recipients_remove.",
		Requires: inboxesWrite, Annotations: restkit.Write(true),
	}, h.update)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "inboxes_delete", Method: "DELETE", Path: "/inboxes/{id}", Tags: []string{"inboxes"},
		Title: "Delete an inbox", Summary: "Deletes an inbox by id or external_id: its address stops receiving e-mail and is free for another inbox.",
		Description: "Destructive: it cannot be undone.",
		Requires:    inboxesManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describeDelete, h.delete)
}

// list answers inboxes_list.
func (h *inboxesAPI) list(ctx context.Context, in *listInboxesIn) (*rest.Response, error) {
	sc, after, err := restkit.PageScope(ctx, h.workspaceScope, in.Cursor)
	if err != nil {
		return nil, err
	}
	f := inboxListFilter{Status: in.Status, Q: strings.TrimSpace(in.Q), After: after, Limit: restkit.PageLimit(in.Limit)}
	if in.AgentID != "" {
		// An agent that is not there matches no inbox.
		f.AgentID = in.AgentID
		if a, err := getAgent(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.AgentID); err == nil {
			f.AgentID = a.ID
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	rows, err := listInboxes(ctx, h.db, sc.OrgID, sc.WorkspaceID, f)
	if err != nil {
		return nil, err
	}
	return restkit.CursorPage(rows, f.Limit, func(r inboxRecord) string { return r.ID }, toInboxJSON), nil
}

// get answers inboxes_get.
func (h *inboxesAPI) get(ctx context.Context, in *inboxRefIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, h.workspaceScope, "inbox", func(sc scope) (inboxRecord, error) {
		return getInbox(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.ID)
	}, toInboxJSON)
}

// create answers inboxes_create.
func (h *inboxesAPI) create(ctx context.Context, in *createInboxIn) (*rest.Response, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return nil, err
	}
	var r inboxRecord
	err = h.db.WithTx(ctx, func(tx *store.Tx) error {
		r, err = h.newInbox(ctx, tx, sc, in.ExternalID, &in.inboxBody)
		return err
	})
	if err != nil {
		return nil, inboxErr(err)
	}
	return rest.Created(map[string]any{"data": toInboxJSON(r)}), nil
}

// upsert answers inboxes_upsert.
func (h *inboxesAPI) upsert(ctx context.Context, in *upsertInboxIn) (*rest.Response, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return nil, err
	}
	var r inboxRecord
	created := false
	// Two concurrent upserts of a new external_id: the loser's insert
	// conflicts, and its second attempt replaces the winner's inbox.
	for attempt := 0; ; attempt++ {
		err = h.db.WithTx(ctx, func(tx *store.Tx) error {
			old, err := getInboxWhere(ctx, tx, `organization_id = ? AND workspace_id = ? AND external_id = ?`+forUpdate(tx), sc.OrgID, sc.WorkspaceID, in.ExternalID)
			if errors.Is(err, store.ErrNotFound) {
				created = true
				r, err = h.newInbox(ctx, tx, sc, in.ExternalID, &in.inboxBody)
				return err
			}
			if err != nil {
				return err
			}
			created = false
			r, err = h.replaceInbox(ctx, tx, sc, old, &in.inboxBody)
			return err
		})
		if !(created && errors.Is(err, store.ErrConflict) && attempt == 0) {
			break
		}
	}
	if err != nil {
		return nil, inboxErr(err)
	}
	if created {
		return rest.Created(map[string]any{"data": toInboxJSON(r)}), nil
	}
	return rest.OK(map[string]any{"data": toInboxJSON(r)}), nil
}

// update answers inboxes_update.
func (h *inboxesAPI) update(ctx context.Context, in *updateInboxIn) (*rest.Response, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return nil, err
	}
	var r inboxRecord
	err = h.db.WithTx(ctx, func(tx *store.Tx) error {
		r, err = lockInbox(ctx, tx, sc.OrgID, sc.WorkspaceID, in.ID)
		if err != nil {
			return err
		}
		return h.patchInbox(ctx, tx, sc, &r, in)
	})
	if err != nil {
		return nil, inboxErr(err)
	}
	return rest.OK(map[string]any{"data": toInboxJSON(r)}), nil
}

// describeDelete is the confirmation inboxes_delete asks for.
func (h *inboxesAPI) describeDelete(ctx context.Context, in *inboxRefIn) (string, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return "", err
	}
	r, err := getInbox(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.ID)
	if err != nil {
		return "", inboxErr(err)
	}
	return fmt.Sprintf("Delete inbox '%s' (%s)? It stops receiving e-mail. This cannot be undone.", r.Label, r.Email), nil
}

// delete answers inboxes_delete.
func (h *inboxesAPI) delete(ctx context.Context, in *inboxRefIn) (*rest.Response, error) {
	sc, err := h.workspaceScope(ctx)
	if err != nil {
		return nil, err
	}
	err = h.nonces.WithTx(ctx, func(tx *store.Tx) error {
		r, err := lockInbox(ctx, tx, sc.OrgID, sc.WorkspaceID, in.ID)
		if err != nil {
			return err
		}
		return deleteInbox(ctx, tx, sc.OrgID, sc.WorkspaceID, r.ID)
	})
	if err != nil {
		return nil, inboxErr(err)
	}
	return rest.NoContent(), nil
}

// newInbox validates body and inserts a new inbox of the caller's
// workspace.
func (s *service) newInbox(ctx context.Context, tx *store.Tx, sc scope, externalID string, body *inboxBody) (inboxRecord, error) {
	now := store.Now()
	r := inboxRecord{ID: store.NewID(), OrganizationID: sc.OrgID, WorkspaceID: sc.WorkspaceID, ExternalID: strings.TrimSpace(externalID), CreatedAt: now, UpdatedAt: now}
	if r.ExternalID == "" {
		r.ExternalID = r.ID
	} else if _, err := getInboxWhere(ctx, tx, `organization_id = ? AND workspace_id = ? AND external_id = ?`, sc.OrgID, sc.WorkspaceID, r.ExternalID); err == nil {
		return r, rest.Conflict("a live inbox of this workspace already has this external_id")
	} else if !errors.Is(err, store.ErrNotFound) {
		return r, err
	}
	if err := s.applyBody(ctx, tx, sc, &r, body); err != nil {
		return r, err
	}
	if r.Email == "" {
		addr, err := s.generateAddress(ctx, tx, sc, r.Label)
		if err != nil {
			return r, err
		}
		r.Email = addr
	}
	return r, insertInbox(ctx, tx, &r)
}

// replaceInbox gives a live inbox every field of body, keeping its id,
// external_id, creation time and, when body names none, its address.
// Replacing the allow-list with another one changes who may send: that
// needs the role the recipients operations need.
func (s *service) replaceInbox(ctx context.Context, tx *store.Tx, sc scope, old inboxRecord, body *inboxBody) (inboxRecord, error) {
	r := inboxRecord{ID: old.ID, OrganizationID: old.OrganizationID, WorkspaceID: old.WorkspaceID, ExternalID: old.ExternalID, CreatedAt: old.CreatedAt, UpdatedAt: store.Now()}
	if err := s.applyBody(ctx, tx, sc, &r, body); err != nil {
		return r, err
	}
	if !equalLists(old.AllowedRecipients, r.AllowedRecipients) && (sc.Identity == nil || !sc.Identity.Role.Allows(identity.PermManage)) {
		return r, rest.Forbidden("changing an inbox's allow-list needs the admin role: leave allowed_recipients as they are, or ask an admin")
	}
	if r.Email == "" {
		r.Email = old.Email
	}
	return r, updateInbox(ctx, tx, &r)
}

func equalLists(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// applyBody validates body and sets r's fields from it, with the
// defaults for what it leaves out (the address stays "" when none was
// given). Every problem found is reported at once.
func (s *service) applyBody(ctx context.Context, tx *store.Tx, sc scope, r *inboxRecord, body *inboxBody) error {
	var bad []rest.FieldError
	r.Label = strings.TrimSpace(body.Label)
	if r.Label == "" {
		bad = append(bad, rest.FieldError{Field: "label", Message: "must not be blank"})
	}
	r.Status = body.Status
	if r.Status == "" {
		r.Status = "active"
	}
	recipients, errs := normaliseRecipients("allowed_recipients", body.AllowedRecipients)
	r.AllowedRecipients = recipients
	bad = append(bad, errs...)
	r.Filters = body.Filters
	bad = append(bad, validateFilters("filters", body.Filters)...)
	r.AttachmentsAllow = 1
	if body.AttachmentsAllow != nil && !*body.AttachmentsAllow {
		r.AttachmentsAllow = 0
	}
	r.AttachmentsMaxFileNumber, r.AttachmentsMaxFileSize, r.AttachmentsMaxTotalSize = body.AttachmentsMaxFileNumber, body.AttachmentsMaxFileSize, body.AttachmentsMaxTotalSize
	if len(bad) > 0 {
		return rest.Validation("the request is invalid", bad...)
	}
	r.AgentID = nil
	if body.AgentID != "" {
		a, err := s.agentForInbox(ctx, tx, sc, body.AgentID)
		if err != nil {
			return err
		}
		r.AgentID = &a.ID
	}
	if body.Email != "" {
		addr, err := s.inboxAddress(body.Email)
		if err != nil {
			return err
		}
		if err := addressFree(ctx, tx, addr, r.ID); err != nil {
			return err
		}
		r.Email = addr
	}
	return nil
}

// patchInbox applies the fields an update names to r and writes it.
func (s *service) patchInbox(ctx context.Context, tx *store.Tx, sc scope, r *inboxRecord, in *updateInboxIn) error {
	var bad []rest.FieldError
	if in.Label != nil {
		if r.Label = strings.TrimSpace(*in.Label); r.Label == "" {
			bad = append(bad, rest.FieldError{Field: "label", Message: "must not be blank"})
		}
	}
	if in.Status != nil {
		r.Status = *in.Status
	}
	if in.Filters != nil {
		r.Filters = *in.Filters
		bad = append(bad, validateFilters("filters", r.Filters)...)
	}
	if in.AttachmentsAllow != nil {
		r.AttachmentsAllow = 0
		if *in.AttachmentsAllow {
			r.AttachmentsAllow = 1
		}
	}
	if in.AttachmentsMaxFileNumber != nil {
		r.AttachmentsMaxFileNumber = clearable(*in.AttachmentsMaxFileNumber)
	}
	if in.AttachmentsMaxFileSize != nil {
		r.AttachmentsMaxFileSize = clearable(*in.AttachmentsMaxFileSize)
	}
	if in.AttachmentsMaxTotalSize != nil {
		r.AttachmentsMaxTotalSize = clearable(*in.AttachmentsMaxTotalSize)
	}
	if len(bad) > 0 {
		return rest.Validation("the request is invalid", bad...)
	}
	if in.ExternalID != nil && *in.ExternalID != r.ExternalID {
		ext := strings.TrimSpace(*in.ExternalID)
		if ext == "" {
			return rest.Validation("the request is invalid", rest.FieldError{Field: "external_id", Message: "must not be blank"})
		}
		if _, err := getInboxWhere(ctx, tx, `organization_id = ? AND workspace_id = ? AND external_id = ? AND id <> ?`, r.OrganizationID, r.WorkspaceID, ext, r.ID); err == nil {
			return rest.Conflict("a live inbox of this workspace already has this external_id")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		r.ExternalID = ext
	}
	if in.AgentID != nil {
		r.AgentID = nil
		if *in.AgentID != "" {
			a, err := s.agentForInbox(ctx, tx, sc, *in.AgentID)
			if err != nil {
				return err
			}
			r.AgentID = &a.ID
		}
	}
	if in.Email != nil {
		addr, err := s.inboxAddress(*in.Email)
		if err != nil {
			return err
		}
		if err := addressFree(ctx, tx, addr, r.ID); err != nil {
			return err
		}
		r.Email = addr
	}
	r.UpdatedAt = store.Now()
	return updateInbox(ctx, tx, r)
}

// agentForInbox resolves the agent an inbox is to use. On PostgreSQL the
// agent's row is share-locked until the transaction ends, so a concurrent
// agents_delete either sees this inbox or runs first and makes this one
// fail: no live inbox is left pointing at a deleted agent.
func (s *service) agentForInbox(ctx context.Context, tx *store.Tx, sc scope, ref string) (agentRecord, error) {
	a, err := shareAgent(ctx, tx, sc.OrgID, sc.WorkspaceID, ref)
	if errors.Is(err, store.ErrNotFound) {
		return a, rest.Validation("the request is invalid", rest.FieldError{Field: "agent_id", Message: "is not an agent of this workspace"})
	}
	return a, err
}

// errInvalidDomain is a receiving address off the Inbox's mail domain:
// mail for it would never reach the product.
func (s *service) errInvalidDomain() *rest.Error {
	return &rest.Error{Status: http.StatusUnprocessableEntity, Code: "invalid_domain", Message: "the address must be on the Inbox's mail domain " + s.cfg.MailDomain,
		Details: []rest.FieldError{{Field: "email", Message: "must end with @" + s.cfg.MailDomain}}}
}

// inboxAddress checks a receiving address a caller chose and returns it
// lower-cased.
func (s *service) inboxAddress(email string) (string, error) {
	addr := strings.ToLower(strings.TrimSpace(email))
	_, domain, ok := splitAddress(addr)
	if !ok {
		return "", rest.Validation("the request is invalid", rest.FieldError{Field: "email", Message: "is not an e-mail address"})
	}
	if domain != strings.ToLower(s.cfg.MailDomain) {
		return "", s.errInvalidDomain()
	}
	return addr, nil
}

// addressFree reports a conflict when a live inbox other than selfID
// receives mail at addr, in any organization (the unique index has the
// last word under concurrency).
func addressFree(ctx context.Context, q store.Querier, addr, selfID string) error {
	_, err := getInboxWhere(ctx, q, `email = ? AND id <> ?`, addr, selfID)
	switch {
	case err == nil:
		return &rest.Error{Status: http.StatusConflict, Code: rest.CodeConflict, Message: "another inbox already receives e-mail at this address",
			Details: []rest.FieldError{{Field: "email", Message: "is taken"}}}
	case errors.Is(err, store.ErrNotFound):
		return nil
	}
	return err
}

// generateAddress makes a new receiving address:
// {workspace email_prefix}-{slug of label}-{6 random}@{domain}, the local
// part kept within 64 characters; a collision (vanishingly rare) draws
// again.
func (s *service) generateAddress(ctx context.Context, q store.Querier, sc scope, label string) (string, error) {
	base := sc.Workspace.EmailPrefix
	if sl := accounts.Slug(label, 40); sl != "" {
		base = strings.Trim(base+"-"+sl, "-")
	}
	if len(base) > 57 {
		base = strings.TrimRight(base[:57], "-")
	}
	for range 5 {
		local := randomToken(6)
		if base != "" {
			local = base + "-" + local
		}
		addr := local + "@" + strings.ToLower(s.cfg.MailDomain)
		err := addressFree(ctx, q, addr, "")
		if err == nil {
			return addr, nil
		}
		var re *rest.Error
		if !errors.As(err, &re) {
			return "", err
		}
	}
	return "", errors.New("inbox: could not draw a free address")
}

const tokenAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// randomToken is n random lower-case letters and digits.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		// 256 % 36 = 4: a negligible bias, acceptable for an address suffix.
		b[i] = tokenAlphabet[int(b[i])%len(tokenAlphabet)]
	}
	return string(b)
}

// filterFields and filterActions are what a screening rule may name.
var (
	filterFields  = []string{"from", "subject", "body", "attachment_name"}
	filterActions = []string{"reject", "allow"}
	// filterOperators mirrors inboxFilter.valid.
	filterOperators = []string{"contains", "equals", "starts_with", "ends_with", "matches"}
)

// validateFilters checks each rule, naming the bad ones by position.
func validateFilters(field string, filters []inboxFilter) []rest.FieldError {
	if len(filters) > maxFilters {
		return []rest.FieldError{{Field: field, Message: fmt.Sprintf("may have at most %d rules", maxFilters)}}
	}
	var bad []rest.FieldError
	for i, f := range filters {
		at := fmt.Sprintf("%s.%d", field, i)
		if !containsString(filterFields, f.Field) {
			bad = append(bad, rest.FieldError{Field: at + ".field", Message: "must be from, subject, body or attachment_name"})
		}
		if !containsString(filterActions, f.Action) {
			bad = append(bad, rest.FieldError{Field: at + ".action", Message: "must be reject or allow"})
		}
		switch {
		case !containsString(filterOperators, f.Operator):
			bad = append(bad, rest.FieldError{Field: at + ".operator", Message: "must be contains, equals, starts_with, ends_with or matches"})
		case f.Value == "" || len(f.Value) > 500:
			bad = append(bad, rest.FieldError{Field: at + ".value", Message: "must have 1 to 500 characters"})
		default:
			if msg := f.valid(); msg != "" {
				bad = append(bad, rest.FieldError{Field: at + ".value", Message: msg})
			}
		}
	}
	return bad
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// inboxErr turns a store error about an inbox into the API's answer.
func inboxErr(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return rest.NotFound("inbox")
	case errors.Is(err, store.ErrConflict):
		return rest.Conflict("another live inbox already uses this external_id or address")
	}
	return err
}
