package notify

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/messaging"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Twilio status callbacks. Every SMS and WhatsApp message asks Twilio to
// post its statuses to /v1/callbacks/twilio/{notification id} under the
// product's public URL. The route is public — Twilio has no token of ours
// — and trusts a request only when its X-Twilio-Signature verifies with
// the deployment's auth token over the exact URL Twilio was given
// (messaging.VerifyRequest).

// callbackStatus is the notification status a Twilio status means:
// Twilio having the message (queued, sent) is our sent, a read receipt is
// opened.
func callbackStatus(s messaging.Status) string {
	switch s {
	case messaging.StatusQueued, messaging.StatusSent:
		return NotificationSent
	case messaging.StatusDelivered:
		return NotificationDelivered
	case messaging.StatusRead:
		return NotificationOpened
	case messaging.StatusFailed:
		return NotificationFailed
	}
	return ""
}

// progress is a notification status as messaging.Status, so that
// Status.Supersedes orders callbacks that arrive out of order: queued,
// sending and unknown are before anything Twilio reports.
func progress(status string) messaging.Status {
	switch status {
	case NotificationSent:
		return messaging.StatusSent
	case NotificationDelivered:
		return messaging.StatusDelivered
	case NotificationOpened:
		return messaging.StatusRead
	case NotificationFailed, NotificationBounced:
		return messaging.StatusFailed
	}
	return ""
}

// MountCallbacks serves Twilio's status callbacks. Without Twilio
// configured the route answers 404, like any unknown route.
func (n *Notifier) MountCallbacks(mux *http.ServeMux, api *rest.API) {
	mux.HandleFunc("POST "+ledger.APIBase+"/callbacks/twilio/{id}", func(w http.ResponseWriter, r *http.Request) {
		if n.ch.TwilioToken == "" {
			api.WriteError(w, rest.NotFound("route"))
			return
		}
		cb, err := messaging.VerifyRequest(r, n.ch.TwilioToken, origin(n.linkBase))
		switch {
		case errors.Is(err, messaging.ErrBadSignature):
			api.WriteError(w, rest.Forbidden("the request's X-Twilio-Signature does not verify"))
			return
		case errors.Is(err, messaging.ErrUnknownStatus):
			// Signed but meaningless to us (an inbound "received"): a
			// retry would not help.
			w.WriteHeader(http.StatusNoContent)
			return
		case err != nil:
			api.WriteError(w, &rest.Error{Status: http.StatusBadRequest, Code: rest.CodeBadRequest, Message: err.Error()})
			return
		}
		if err := n.applyCallback(r, r.PathValue("id"), cb); errors.Is(err, store.ErrNotFound) {
			api.WriteError(w, rest.NotFound("notification"))
			return
		} else if err != nil {
			n.Log.ErrorContext(r.Context(), "dunning: twilio callback", "error", err)
			api.WriteError(w, &rest.Error{Status: http.StatusInternalServerError, Code: rest.CodeInternal, Message: "internal error"})
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// applyCallback records what Twilio says of notification id, when it
// supersedes what the row says (Twilio does not promise order: a late
// "sent" never overwrites "delivered"), and emits
// dunning.notification.delivered or .failed (or .sent, when the callback
// is the first news of a message whose send had an unknown outcome).
func (n *Notifier) applyCallback(r *http.Request, id string, cb messaging.Callback) error {
	ctx := r.Context()
	return n.DB.WithTx(ctx, func(tx *store.Tx) error {
		row, err := GetNotificationByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if row.Provider != ledger.ProviderTwilio || (row.ProviderMessageID != nil && *row.ProviderMessageID != cb.MessageSID) {
			return nil // about another message: ignore it
		}
		to := callbackStatus(cb.Status)
		if to == "" || !progress(to).Supersedes(progress(row.Status)) {
			// Only the message id is news, if the send's own record of it
			// was lost.
			return recordProviderMessageID(ctx, tx, row.ID, cb.MessageSID)
		}
		now := n.Clock()
		var why *string
		slug := ""
		switch to {
		case NotificationSent:
			slug = EventNotificationSent
		case NotificationDelivered:
			slug = EventNotificationDelivered
		case NotificationFailed:
			msg := fmt.Sprintf("twilio: %s", cb.RawStatus)
			if cb.ErrorCode != 0 {
				msg += fmt.Sprintf(" (error %d)", cb.ErrorCode)
			}
			why = &msg
			slug = EventNotificationFailed
		}
		if err := recordCallbackStatus(ctx, tx, row.ID, to, cb.MessageSID, why, now); err != nil {
			return err
		}
		if slug == "" {
			return nil
		}
		fresh, err := GetNotificationByID(ctx, tx, row.ID)
		if err != nil {
			return err
		}
		return n.emitNotificationEvent(ctx, tx, slug, fresh)
	})
}

// origin is the scheme and host of a URL (what Twilio's signature is
// computed over, with the request's own path and query).
func origin(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return base
	}
	return u.Scheme + "://" + u.Host
}
