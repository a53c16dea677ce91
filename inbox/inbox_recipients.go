package inbox

import (
	"context"
	"fmt"
	"slices"

	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

type addRecipientIn struct {
	ID    string `json:"id" in:"path" jsonschema:"The inbox's id or external_id."`
	Email string `json:"email" minLength:"1" maxLength:"254" jsonschema:"The sender to allow: an e-mail address, or @domain for every address of a domain."`
}

type removeRecipientIn struct {
	ID    string `json:"id" in:"path" jsonschema:"The inbox's id or external_id."`
	Email string `json:"email" in:"query" minLength:"1" maxLength:"254" jsonschema:"The allow-list entry to remove: an e-mail address or @domain."`
}

// Changing who may send to an inbox is security-relevant: admins and
// owners only (identity.PermManage).
var recipientsScope = mcp.Requirement{Scopes: []string{"inbox.inboxes"}, Permission: identity.PermManage}

// registerInboxRecipients declares the allow-list operations. Both are
// destructive (they change who can send), so through MCP they run only
// after the person confirmed a message naming the sender and the inbox.
// An empty allow-list means anyone may send: removing the last entry opens
// the inbox, and the confirmation says so.
func registerInboxRecipients(api *rest.API, s *service) {
	h := &inboxesAPI{s}
	rest.HandleConfirmed(api, rest.Operation{
		ID: "inboxes_recipients_add", Method: "POST", Path: "/inboxes/{id}/recipients", Tags: []string{"inboxes"},
		Title:    "Allow a sender",
		Summary:  "Adds a sender (an address, or @domain) to an inbox's allow-list: 201 when added, 200 when it was already there. With a non-empty allow-list, only listed senders' e-mail is accepted.",
		Requires: recipientsScope, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describeRecipientsAdd, h.recipientsAdd)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "inboxes_recipients_remove", Method: "DELETE", Path: "/inboxes/{id}/recipients", Tags: []string{"inboxes"},
		Title:    "Remove an allowed sender",
		Summary:  "Removes a sender (an address, or @domain) from an inbox's allow-list and answers the inbox; 404 when the entry is not there. An empty allow-list accepts mail from anyone.",
		Requires: recipientsScope, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describeRecipientsRemove, h.recipientsRemove)
}

// describeRecipientsAdd is the confirmation inboxes_recipients_add asks for.
func (h *inboxesAPI) describeRecipientsAdd(ctx context.Context, in *addRecipientIn) (string, error) {
	sc, entry, err := h.recipientCall(ctx, in.Email, "email")
	if err != nil {
		return "", err
	}
	r, err := getInbox(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.ID)
	if err != nil {
		return "", inboxErr(err)
	}
	if len(r.AllowedRecipients) == 0 {
		return fmt.Sprintf("Allow %s to send to inbox '%s' (%s)? The inbox accepts mail from anyone now; afterwards it accepts mail only from %s.", entry, r.Label, r.Email, entry), nil
	}
	return fmt.Sprintf("Allow %s to send to inbox '%s' (%s)?", entry, r.Label, r.Email), nil
}

// recipientsAdd answers inboxes_recipients_add.
func (h *inboxesAPI) recipientsAdd(ctx context.Context, in *addRecipientIn) (*rest.Response, error) {
	sc, entry, err := h.recipientCall(ctx, in.Email, "email")
	if err != nil {
		return nil, err
	}
	added := false
	var r inboxRecord
	err = h.nonces.WithTx(ctx, func(tx *store.Tx) error {
		r, err = lockInbox(ctx, tx, sc.OrgID, sc.WorkspaceID, in.ID)
		if err != nil {
			return err
		}
		if slices.Contains(r.AllowedRecipients, entry) {
			return nil
		}
		if len(r.AllowedRecipients) >= maxRecipients {
			return rest.Validation("the allow-list is full", rest.FieldError{Field: "email", Message: fmt.Sprintf("the inbox already allows %d senders", maxRecipients)})
		}
		r.AllowedRecipients = append(r.AllowedRecipients, entry)
		r.UpdatedAt = store.Now()
		added = true
		return updateInbox(ctx, tx, &r)
	})
	if err != nil {
		return nil, inboxErr(err)
	}
	body := map[string]any{"data": toInboxJSON(r)}
	if added {
		return rest.Created(body), nil
	}
	return rest.OK(body), nil
}

// describeRecipientsRemove is the confirmation inboxes_recipients_remove asks for.
func (h *inboxesAPI) describeRecipientsRemove(ctx context.Context, in *removeRecipientIn) (string, error) {
	sc, entry, err := h.recipientCall(ctx, in.Email, "email")
	if err != nil {
		return "", err
	}
	r, err := getInbox(ctx, h.db, sc.OrgID, sc.WorkspaceID, in.ID)
	if err != nil {
		return "", inboxErr(err)
	}
	if !slices.Contains(r.AllowedRecipients, entry) {
		return "", rest.NotFound("recipient")
	}
	if len(r.AllowedRecipients) == 1 {
		return fmt.Sprintf("Stop accepting e-mail from %s at inbox '%s' (%s)? It is the last entry of the allow-list: afterwards the inbox accepts mail from anyone.", entry, r.Label, r.Email), nil
	}
	return fmt.Sprintf("Stop accepting e-mail from %s at inbox '%s' (%s)?", entry, r.Label, r.Email), nil
}

// recipientsRemove answers inboxes_recipients_remove.
func (h *inboxesAPI) recipientsRemove(ctx context.Context, in *removeRecipientIn) (*rest.Response, error) {
	sc, entry, err := h.recipientCall(ctx, in.Email, "email")
	if err != nil {
		return nil, err
	}
	var r inboxRecord
	err = h.nonces.WithTx(ctx, func(tx *store.Tx) error {
		r, err = lockInbox(ctx, tx, sc.OrgID, sc.WorkspaceID, in.ID)
		if err != nil {
			return err
		}
		i := slices.Index(r.AllowedRecipients, entry)
		if i < 0 {
			return rest.NotFound("recipient")
		}
		r.AllowedRecipients = slices.Delete(r.AllowedRecipients, i, i+1)
		r.UpdatedAt = store.Now()
		return updateInbox(ctx, tx, &r)
	})
	if err != nil {
		return nil, inboxErr(err)
	}
	return rest.OK(map[string]any{"data": toInboxJSON(r)}), nil
}

// recipientCall resolves the caller's workspace and normalises the entry
// a recipients operation is about.
func (s *service) recipientCall(ctx context.Context, email, field string) (scope, string, error) {
	sc, err := s.workspaceScope(ctx)
	if err != nil {
		return sc, "", err
	}
	entry, msg := normaliseRecipient(email)
	if msg != "" {
		return sc, "", rest.Validation("the request is invalid", rest.FieldError{Field: field, Message: msg})
	}
	return sc, entry, nil
}
