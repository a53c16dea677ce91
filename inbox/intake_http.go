package inbox

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"sort"
	"strings"

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

// registerIntake declares the HTTP intake operation.
func registerIntake(api *rest.API, s *service) {
	rest.HandleRaw(api, rest.Operation{
		ID: "intake_messages_create", Method: "POST", Path: intakeHTTPPath, Tags: []string{"intake"},
		Title: "Deliver a message", Summary: "Delivers a raw RFC 5322 message (the request body, Content-Type message/rfc822) to inboxes of the organization, as the SMTP intake would: recipients from ?to= (repeatable), else the message's To and Cc headers; sender from ?from=, else the From header. Answers 202 with each e-mail's id and screening status; a message an inbox has already (same Message-ID and bytes: a retry) answers that e-mail with duplicate: true and is not stored again. REST only.",
		Requires: emailsWrite, Annotations: writeAnnotations(false),
	}, func(w http.ResponseWriter, r *http.Request) {
		s.serveIntake(api, w, r)
	})
}

// mountIntake mounts routes of the intake outside the API. The HTTP intake
// is an API operation (registerIntake) and SMTP has its own listener, so
// there is nothing to mount; product.go keeps the hook for a future
// provider callback (an SES or Mailgun inbound webhook would go here).
func mountIntake(mux *http.ServeMux, s *service) {}

// serveIntake answers POST /intake/messages.
func (s *service) serveIntake(api *rest.API, w http.ResponseWriter, r *http.Request) {
	fail := func(err error) { s.writeRawError(api, w, r, err) }
	id := identity.From(r.Context())
	if id == nil {
		fail(rest.Forbidden("no identity"))
		return
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (ct != "message/rfc822" && ct != "message/global") {
		fail(&rest.Error{Status: http.StatusUnsupportedMediaType, Code: rest.CodeUnsupportedMedia, Message: "the body must be a raw message sent as Content-Type: message/rfc822"})
		return
	}
	query := r.URL.Query()
	var details []rest.FieldError
	for k := range query {
		if k != "to" && k != "from" {
			details = append(details, rest.FieldError{Field: k, Message: "unknown query parameter"})
		}
	}
	if len(details) > 0 {
		sort.Slice(details, func(i, j int) bool { return details[i].Field < details[j].Field })
		fail(rest.Validation("the request is invalid", details...))
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxMessageBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		fail(&rest.Error{Status: http.StatusRequestEntityTooLarge, Code: rest.CodePayloadTooLarge, Message: "the message is larger than the intake accepts"})
		return
	case err != nil:
		fail(rest.Validation("the body could not be read", rest.FieldError{Field: "", Message: err.Error()}))
		return
	case len(strings.TrimSpace(string(raw))) == 0:
		fail(rest.Validation("the request is invalid", rest.FieldError{Field: "body", Message: "must be a raw RFC 5322 message"}))
		return
	}
	msg, perr := parseMessage(raw)
	// The recipients as the inboxes found when they were checked, each
	// once: receiveParsed stores the e-mails without looking them up
	// again (each e-mail's transaction reads its inbox anew).
	var rcpts []inboxRecord
	seen := map[string]bool{}
	add := func(ib inboxRecord) {
		if !seen[ib.Email] {
			seen[ib.Email] = true
			rcpts = append(rcpts, ib)
		}
	}
	explicit := len(query["to"]) > 0
	if explicit {
		var unknown []string
		for _, v := range query["to"] {
			for _, a := range strings.Split(v, ",") {
				if strings.TrimSpace(a) == "" {
					continue
				}
				addr := normalizeAddress(a)
				ib, own, err := s.ownActiveInbox(r, id, addr)
				if err != nil {
					fail(err)
					return
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
			fail(rest.Validation("some recipients are not active inboxes of this organization", details...))
			return
		}
	} else if msg != nil {
		for _, a := range append(append([]string{}, addresses(msg.To)...), addresses(msg.Cc)...) {
			addr := normalizeAddress(a)
			ib, own, err := s.ownActiveInbox(r, id, addr)
			if err != nil {
				fail(err)
				return
			}
			if own {
				add(ib)
			}
		}
	}
	if len(rcpts) == 0 {
		fail(rest.Validation("the message has no recipient that is an active inbox of this organization", rest.FieldError{Field: "to", Message: "name the inbox address with ?to=, or address the message to it"}))
		return
	}
	from := query.Get("from")
	if from == "" && msg != nil && msg.From != nil {
		from = msg.From.Address
	}
	emails, err := s.receiveParsed(r.Context(), raw, msg, perr, from, rcpts, intakeHTTP)
	if errors.Is(err, errNoRecipient) {
		fail(rest.Validation("the message has no recipient that is an active inbox of this organization", rest.FieldError{Field: "to", Message: "the inboxes were deleted meanwhile"}))
		return
	}
	if err != nil {
		fail(err)
		return
	}
	out := make([]intakeResultJSON, 0, len(emails))
	for _, e := range emails {
		out = append(out, intakeResultJSON{ID: e.ID, InboxID: e.InboxID, Status: e.Status, RejectionReason: e.RejectionReason, Duplicate: e.Duplicate})
	}
	api.WriteResponse(w, rest.Accepted(map[string]any{"data": out}))
}

// ownActiveInbox reports whether addr is a live, active inbox the caller
// may deliver to: one of its organization, and of its token's workspace
// when the token is bound to one; ib is that inbox.
func (s *service) ownActiveInbox(r *http.Request, id *identity.Identity, addr string) (ib inboxRecord, own bool, err error) {
	if addr == "" {
		return ib, false, nil
	}
	ib, err = s.inboxByAddress(r.Context(), s.db, addr)
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
