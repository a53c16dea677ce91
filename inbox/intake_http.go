package inbox

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/kobana/kobana-mcp/inbox/mailparse"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// The HTTP intake takes a raw RFC 5322 message as a request body: for
// systems that hold mail already (an archive, a relay that posts, a test)
// and for tenants that cannot point a mail route at the SMTP intake. It is
// REST-only (a message is a file, and files never travel through MCP).
//
// Recipients are inboxes of the caller's organization (of the token's
// workspace when the token is bound to one); any other address is unknown,
// whether or not it exists elsewhere. Explicit recipients (?to=) must all
// be active inboxes (else 422 naming them); recipients taken from the
// message's To and Cc headers are those that are, the rest being other
// people the message was also sent to. A retried post of a message an
// inbox has already answers 202 with that e-mail (duplicate: true).
//
// The operation (intake_messages_create) is declared among the e-mail
// operations, registerEmails, whose raw handlers it shares
// (emailsAPI.intake); what it does is here, below the API.

// intakeHTTPPath is the HTTP intake's route under the API base.
const intakeHTTPPath = "/intake/messages"

// intakeResultJSON is what the HTTP intake answers for each e-mail.
// Duplicate says the inbox had the message already (a relay's retry of a
// delivery that was stored): the e-mail is the one stored then, as it is
// now, and nothing was stored again.
type intakeResultJSON struct {
	ID              string  `json:"id"`
	InboxID         string  `json:"inbox_id"`
	Status          string  `json:"status"`
	RejectionReason *string `json:"rejection_reason"`
	Duplicate       bool    `json:"duplicate,omitempty"`
}

// deliverPosted reads the posted message, finds its recipients and stores
// an e-mail for each.
func (s *service) deliverPosted(w http.ResponseWriter, r *http.Request) ([]intakeResultJSON, error) {
	id := identity.From(r.Context())
	if id == nil {
		return nil, rest.Forbidden("no identity")
	}
	query := r.URL.Query()
	raw, err := s.readPosted(w, r, query)
	if err != nil {
		return nil, err
	}
	msg, perr := parseMessage(raw)
	rcpts, err := s.postedRecipients(r, id, query["to"], msg)
	if err != nil {
		return nil, err
	}
	from := query.Get("from")
	if from == "" && msg != nil && msg.From != nil {
		from = msg.From.Address
	}
	emails, err := s.receiveParsed(r.Context(), raw, msg, perr, from, rcpts, intakeHTTP)
	if errors.Is(err, errNoRecipient) {
		return nil, rest.Validation("the message has no recipient that is an active inbox of this organization", rest.FieldError{Field: "to", Message: "the inboxes were deleted meanwhile"})
	}
	if err != nil {
		return nil, err
	}
	out := make([]intakeResultJSON, 0, len(emails))
	for _, e := range emails {
		out = append(out, intakeResultJSON{ID: e.ID, InboxID: e.InboxID, Status: e.Status, RejectionReason: e.RejectionReason, Duplicate: e.Duplicate})
	}
	return out, nil
}

// readPosted checks the request's media type and query parameters and
// reads the raw message, at most Config.MaxMessageBytes of it.
func (s *service) readPosted(w http.ResponseWriter, r *http.Request, query url.Values) ([]byte, error) {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (ct != "message/rfc822" && ct != "message/global") {
		return nil, &rest.Error{Status: http.StatusUnsupportedMediaType, Code: rest.CodeUnsupportedMedia, Message: "the body must be a raw message sent as Content-Type: message/rfc822"}
	}
	var details []rest.FieldError
	for k := range query {
		if k != "to" && k != "from" {
			details = append(details, rest.FieldError{Field: k, Message: "unknown query parameter"})
		}
	}
	if len(details) > 0 {
		sort.Slice(details, func(i, j int) bool { return details[i].Field < details[j].Field })
		return nil, rest.Validation("the request is invalid", details...)
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxMessageBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, &rest.Error{Status: http.StatusRequestEntityTooLarge, Code: rest.CodePayloadTooLarge, Message: "the message is larger than the intake accepts"}
	case err != nil:
		return nil, rest.Validation("the body could not be read", rest.FieldError{Field: "", Message: err.Error()})
	case len(strings.TrimSpace(string(raw))) == 0:
		return nil, rest.Validation("the request is invalid", rest.FieldError{Field: "body", Message: "must be a raw RFC 5322 message"})
	}
	return raw, nil
}

// postedRecipients are the inboxes a posted message goes to, each once,
// as they were found when checked: receiveParsed stores the e-mails
// without looking them up again (each e-mail's transaction reads its inbox
// anew). Explicit recipients (?to=, each a comma-separated list) must all
// be the caller's active inboxes; without them, the message's To and Cc
// addresses that are.
func (s *service) postedRecipients(r *http.Request, id *identity.Identity, to []string, msg *mailparse.Message) ([]inboxRecord, error) {
	var rcpts []inboxRecord
	seen := map[string]bool{}
	add := func(ib inboxRecord) {
		if !seen[ib.Email] {
			seen[ib.Email] = true
			rcpts = append(rcpts, ib)
		}
	}
	if len(to) > 0 {
		var unknown []string
		for _, v := range to {
			for _, a := range strings.Split(v, ",") {
				if strings.TrimSpace(a) == "" {
					continue
				}
				ib, own, err := s.ownActiveInbox(r, id, normalizeAddress(a))
				if err != nil {
					return nil, err
				}
				if !own {
					unknown = append(unknown, strings.TrimSpace(a))
					continue
				}
				add(ib)
			}
		}
		if len(unknown) > 0 {
			details := make([]rest.FieldError, len(unknown))
			for i, a := range unknown {
				details[i] = rest.FieldError{Field: "to", Message: a + ": no active inbox of this organization has this address"}
			}
			return nil, rest.Validation("some recipients are not active inboxes of this organization", details...)
		}
	} else if msg != nil {
		for _, a := range append(append([]string{}, addresses(msg.To)...), addresses(msg.Cc)...) {
			ib, own, err := s.ownActiveInbox(r, id, normalizeAddress(a))
			if err != nil {
				return nil, err
			}
			if own {
				add(ib)
			}
		}
	}
	if len(rcpts) == 0 {
		return nil, rest.Validation("the message has no recipient that is an active inbox of this organization", rest.FieldError{Field: "to", Message: "name the inbox address with ?to=, or address the message to it"})
	}
	return rcpts, nil
}

// ownActiveInbox reports whether addr is a live, active inbox the caller
// may deliver to: one of its organization, and of its token's workspace
// when the token is bound to one; ib is that inbox.
func (s *service) ownActiveInbox(r *http.Request, id *identity.Identity, addr string) (ib inboxRecord, own bool, err error) {
	if addr == "" {
		return ib, false, nil
	}
	ib, err = inboxByAddress(r.Context(), s.db, addr)
	if errors.Is(err, store.ErrNotFound) {
		return ib, false, nil
	}
	if err != nil {
		return ib, false, err
	}
	if ib.Status != "active" || ib.OrganizationID != id.OrganizationID {
		return ib, false, nil
	}
	return ib, id.WorkspaceID == "" || ib.WorkspaceID == id.WorkspaceID, nil
}
