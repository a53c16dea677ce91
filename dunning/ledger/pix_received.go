package ledger

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// The tools of the Pix webhook (pix_webhook.go): its URL and secret, the
// Pix received with money waiting for a person, and what a person does
// with that money — assign it to a charge (through the one payment path)
// or dismiss it (refunded outside, not the creditor's).

// pixSecretGrace is how long a rotated secret keeps working, so the PSP
// can be given the new URL without a Pix refused in between (a PSP
// retries a refused call, but not forever).
const pixSecretGrace = 24 * time.Hour

// maxPixNote bounds a dismissal's reason and an assignment's note.
const maxPixNote = 500

type pixWebhookIn struct{}

type listPixReceivedIn struct {
	All bool `json:"all,omitempty" in:"query" jsonschema:"true lists every Pix received, reconciled ones too (default: only those with money waiting for a person)."`
	restkit.NumberedParams
}

type pixReceivedRefIn struct {
	ID string `json:"id" in:"path" jsonschema:"The Pix received's id (from dunning_pix_received_list)."`
}

type assignPixIn struct {
	ID       string  `json:"id" in:"path" jsonschema:"The Pix received's id (from dunning_pix_received_list)."`
	ChargeID string  `json:"charge_id" minLength:"1" maxLength:"255" jsonschema:"The charge (id or external_id) the money pays."`
	Amount   float64 `json:"amount,omitempty" minimum:"0" jsonschema:"How much of what waits to assign, in BRL (default all of it); the rest keeps waiting. At most the charge's updated amount on the day the Pix was paid."`
	Note     string  `json:"note,omitempty" maxLength:"500" jsonschema:"Why, kept with the Pix."`
}

type dismissPixIn struct {
	ID     string `json:"id" in:"path" jsonschema:"The Pix received's id (from dunning_pix_received_list)."`
	Reason string `json:"reason" minLength:"1" maxLength:"500" jsonschema:"Why the money is not assigned (refunded to the payer outside Dunning, not this creditor's), kept with the Pix (required)."`
}

// pixWebhookJSON is the organization's webhook as the tools show it.
type pixWebhookJSON struct {
	Configured bool   `json:"configured"`
	ID         string `json:"id,omitempty"`
	// SecretURL is the URL to give a PSP without mutual TLS; its secret
	// shows only in the answer of a rotation ("{secret}" otherwise).
	SecretURL string `json:"secret_url,omitempty"`
	// MTLSURL is the URL to give a PSP with mutual TLS, when the
	// deployment has the listener.
	MTLSURL            string     `json:"mtls_url,omitempty"`
	Secret             string     `json:"secret,omitempty"`
	RotatedAt          *time.Time `json:"rotated_at,omitempty"`
	PreviousValidUntil *time.Time `json:"previous_secret_valid_until,omitempty"`
}

// pixWebhookTools are the tools' handlers, with the product's public URL.
type pixWebhookTools struct {
	*Service
	publicURL string
}

// RegisterPixReceived declares the Pix webhook's tools; publicURL is the
// product's origin the secret URL is under.
func RegisterPixReceived(api *rest.API, s *Service, publicURL string) {
	h := &pixWebhookTools{Service: s, publicURL: strings.TrimRight(publicURL, "/")}
	rest.Handle(api, rest.Operation{
		ID: "dunning_pix_webhook_get", Method: "GET", Path: "/settings/pix-webhook", Tags: []string{"pix"},
		Title:    "Get the Pix webhook",
		Summary:  "Shows the URLs to register at the creditor's PSP as its Pix webhook (BCB API Pix: the PSP POSTs each Pix received to the URL plus /pix): the secret URL for a PSP without mutual TLS (its secret is shown only when rotated) and the mutual-TLS URL when the deployment has that listener.",
		Requires: SettingsManage, Annotations: restkit.ReadOnly(),
	}, h.pixWebhookGet)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_pix_webhook_rotate", Method: "POST", Path: "/settings/pix-webhook/rotate", Tags: []string{"pix"},
		Title:   "Create or rotate the Pix webhook's secret",
		Summary: "Creates the organization's Pix webhook or gives it a new secret, answering the secret URL with it (shown only now). The previous secret keeps working for 24 hours, time to register the new URL at the PSP.",
		Description: "Destructive: after 24 hours a PSP still calling the old secret URL is refused (it retries, then gives up), so its Pix are not reconciled until " +
			"the new URL is registered.",
		Requires: SettingsManage, Annotations: restkit.Destructive(false), ConsumesConfirmation: true,
	}, h.describePixWebhookRotate, h.pixWebhookRotate)
	rest.Handle(api, rest.Operation{
		ID: "dunning_pix_received_list", Method: "GET", Path: "/pix-received", Tags: []string{"pix"},
		Title: "List Pix received with money waiting",
		Summary: "Lists, newest first, the Pix the creditor's PSP reported through the webhook that still have money waiting for a person: unmatched (no txid, an unknown one, a charge not payable) or the excess above what the matched charge owed. " +
			"all=true lists the reconciled, assigned and dismissed ones too.",
		Requires: ChargesRead, Annotations: restkit.ReadOnly(),
	}, h.pixReceivedList)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_pix_received_assign", Method: "POST", Path: "/pix-received/{id}/assign", Tags: []string{"pix"},
		Title: "Assign a Pix received to a charge",
		Summary: "Records money of a Pix received that waits (all of it unless amount says less) as a payment of a pending or overdue charge, paid when the Pix was, exactly as dunning_charges_payments_create would " +
			"(imputation, caps, dunning.payment.recorded, dunning.charge.paid when it clears the charge). Money already assigned or dismissed cannot be assigned again.",
		Description: "Destructive: it moves money onto a debtor's charge.",
		Requires:    chargesWrite, Annotations: restkit.Destructive(false), ConsumesConfirmation: true,
	}, h.describePixAssign, h.pixReceivedAssign)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_pix_received_dismiss", Method: "POST", Path: "/pix-received/{id}/dismiss", Tags: []string{"pix"},
		Title:       "Dismiss a Pix received",
		Summary:     "Marks what waits of a Pix received as not to be assigned (refunded to the payer outside Dunning, not this creditor's), with the reason; it leaves the waiting list.",
		Description: "Destructive: the money is no longer offered for assignment.",
		Requires:    chargesManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describePixDismiss, h.pixReceivedDismiss)
}

// secretURL is the URL with the secret (or "{secret}") in it.
func (h *pixWebhookTools) secretURL(id, secret string) string {
	return h.publicURL + APIBase + "/pix-webhooks/" + id + "?secret=" + secret
}

func (h *pixWebhookTools) showWebhook(w pixWebhookRow, secret string) pixWebhookJSON {
	out := pixWebhookJSON{Configured: true, ID: w.ID, SecretURL: h.secretURL(w.ID, "{secret}"), Secret: secret, RotatedAt: &w.RotatedAt}
	if secret != "" {
		out.SecretURL = h.secretURL(w.ID, secret)
	}
	if u := h.pixMTLSURL(); u != "" {
		out.MTLSURL = u + APIBase + "/pix-webhooks/" + w.ID
	}
	if w.PreviousValidUntil != nil && w.PreviousValidUntil.After(h.Clock()) {
		out.PreviousValidUntil = w.PreviousValidUntil
	}
	return out
}

// pixWebhookGet answers dunning_pix_webhook_get.
func (h *pixWebhookTools) pixWebhookGet(ctx context.Context, _ *pixWebhookIn) (*rest.Response, error) {
	t, err := h.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	w, err := pixWebhookOf(ctx, h.DB, t.OrgID)
	if errors.Is(err, store.ErrNotFound) {
		return rest.OK(map[string]any{"data": pixWebhookJSON{}}), nil
	}
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": h.showWebhook(w, "")}), nil
}

// describePixWebhookRotate is dunning_pix_webhook_rotate's confirmation.
func (h *pixWebhookTools) describePixWebhookRotate(ctx context.Context, _ *pixWebhookIn) (string, error) {
	t, err := h.Tenant(ctx)
	if err != nil {
		return "", err
	}
	if _, err := pixWebhookOf(ctx, h.DB, t.OrgID); errors.Is(err, store.ErrNotFound) {
		return "Create the Pix webhook and its secret URL?", nil
	} else if err != nil {
		return "", err
	}
	return "Give the Pix webhook a new secret? The current secret URL stops working in 24 hours; register the new one at the PSP before then.", nil
}

// pixWebhookRotate answers dunning_pix_webhook_rotate.
func (h *pixWebhookTools) pixWebhookRotate(ctx context.Context, _ *pixWebhookIn) (*rest.Response, error) {
	t, err := h.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	secret := base64.RawURLEncoding.EncodeToString(raw)
	now := h.Clock()
	var w pixWebhookRow
	err = h.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		old, err := pixWebhookOf(ctx, tx, t.OrgID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			w = pixWebhookRow{OrganizationID: t.OrgID, ID: store.NewID(), CreatedAt: now}
		case err != nil:
			return err
		default:
			w = old
			prev, until := old.SecretSHA256, now.Add(pixSecretGrace)
			w.PreviousSHA256, w.PreviousValidUntil = &prev, &until
		}
		w.SecretSHA256, w.RotatedAt, w.RotatedBy = secretSHA256(secret), now, recordedBy(t.Identity)
		return savePixWebhook(ctx, tx, w)
	})
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": h.showWebhook(w, secret)}), nil
}

// pixReceivedList answers dunning_pix_received_list.
func (h *pixWebhookTools) pixReceivedList(ctx context.Context, in *listPixReceivedIn) (*rest.Response, error) {
	t, err := h.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	page, perPage, offset := in.Window()
	rows, total, err := listPixReceived(ctx, h.DB, t.OrgID, !in.All, perPage, offset)
	if err != nil {
		return nil, err
	}
	return restkit.NumberedPage(rows, page, perPage, total, showPixReceived), nil
}

// describePixAssign is dunning_pix_received_assign's confirmation.
func (h *pixWebhookTools) describePixAssign(ctx context.Context, in *assignPixIn) (string, error) {
	t, err := h.Tenant(ctx)
	if err != nil {
		return "", err
	}
	p, err := getPixReceived(ctx, h.DB, t.OrgID, in.ID)
	if err != nil {
		return "", NotFoundAs(err, "pix")
	}
	amount := p.Unassigned
	if in.Amount > 0 {
		if amount, err = amountIn("amount", in.Amount); err != nil {
			return "", err
		}
	}
	c, err := GetCharge(ctx, h.DB, t.OrgID, in.ChargeID)
	if err != nil {
		return "", NotFoundAs(err, "charge")
	}
	d, err := GetDebtor(ctx, h.DB, t.OrgID, c.DebtorID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Record %s of the Pix %s (paid %s) as a payment of the %s charge owed by '%s', due %s? The money is applied to that charge.",
		amount, p.EndToEndID, p.PaidAt.Format(time.RFC3339), c.Status, d.Name, c.DueDate.BR()), nil
}

// pixReceivedAssign answers dunning_pix_received_assign: what waits is
// taken (a conditional update: never twice) and recorded through
// recordPayment, in one transaction.
func (h *pixWebhookTools) pixReceivedAssign(ctx context.Context, in *assignPixIn) (*rest.Response, error) {
	t, err := h.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	note := strings.TrimSpace(in.Note)
	if len([]rune(note)) > maxPixNote {
		return nil, Invalid("note", fmt.Sprintf("must be at most %d characters", maxPixNote))
	}
	var asked money.Cents
	if in.Amount != 0 {
		if asked, err = positiveAmountIn("amount", in.Amount); err != nil {
			return nil, err
		}
	}
	var r recordedPayment
	var p pixReceivedRow
	err = h.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if p, err = getPixReceived(ctx, tx, t.OrgID, in.ID); err != nil {
			return NotFoundAs(err, "pix")
		}
		if p.Unassigned == 0 {
			return rest.Conflict(fmt.Sprintf("nothing of this Pix waits for assignment: it is %s", p.Status))
		}
		amount := p.Unassigned
		if asked != 0 {
			if asked > p.Unassigned {
				return Invalid("amount", fmt.Sprintf("must be at most the %s of this Pix that waits", p.Unassigned))
			}
			amount = asked
		}
		c, err := LockCharge(ctx, tx, t.OrgID, in.ChargeID)
		if err != nil {
			return NotFoundAs(err, "charge")
		}
		if c.ArchivedAt != nil {
			return rest.Unprocessable("an archived charge cannot receive payments")
		}
		if err := takePixUnassigned(ctx, tx, t.OrgID, p.ID, amount, true, recordedBy(t.Identity), note, h.Clock()); errors.Is(err, errPixNothingWaiting) {
			return rest.Conflict("this Pix's money was assigned or dismissed meanwhile")
		} else if err != nil {
			return err
		}
		pay := &createPaymentIn{ID: c.ID, Method: "pix", Reference: p.EndToEndID}
		if r, err = h.recordPayment(ctx, tx, t, pay, amount, p.PaidAt, h.Clock()); err != nil {
			return err
		}
		p, err = getPixReceived(ctx, tx, t.OrgID, p.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	v, err := h.ChargeView(r.charge, r.settings, bankcalendar.Date{})
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": map[string]any{"pix": showPixReceived(p),
		"payment": paymentResultJSON{paymentRecordedJSON: showPaymentResult(r.payment, r.left), Charge: v}}}), nil
}

// describePixDismiss is dunning_pix_received_dismiss's confirmation.
func (h *pixWebhookTools) describePixDismiss(ctx context.Context, in *dismissPixIn) (string, error) {
	t, err := h.Tenant(ctx)
	if err != nil {
		return "", err
	}
	p, err := getPixReceived(ctx, h.DB, t.OrgID, in.ID)
	if err != nil {
		return "", NotFoundAs(err, "pix")
	}
	return fmt.Sprintf("Dismiss the %s that waits of the Pix %s (paid %s)? It will no longer be offered for assignment.", p.Unassigned, p.EndToEndID,
		p.PaidAt.Format(time.RFC3339)), nil
}

// pixReceivedDismiss answers dunning_pix_received_dismiss.
func (h *pixWebhookTools) pixReceivedDismiss(ctx context.Context, in *dismissPixIn) (*rest.Response, error) {
	t, err := h.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(in.Reason)
	if reason == "" {
		return nil, Invalid("reason", "must say why the money is not assigned")
	}
	if len([]rune(reason)) > maxPixNote {
		return nil, Invalid("reason", fmt.Sprintf("must be at most %d characters", maxPixNote))
	}
	var p pixReceivedRow
	err = h.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if p, err = getPixReceived(ctx, tx, t.OrgID, in.ID); err != nil {
			return NotFoundAs(err, "pix")
		}
		if p.Unassigned == 0 {
			return rest.Conflict(fmt.Sprintf("nothing of this Pix waits: it is %s", p.Status))
		}
		if err := takePixUnassigned(ctx, tx, t.OrgID, p.ID, p.Unassigned, false, recordedBy(t.Identity), reason, h.Clock()); errors.Is(err, errPixNothingWaiting) {
			return rest.Conflict("this Pix's money was assigned or dismissed meanwhile")
		} else if err != nil {
			return err
		}
		p, err = getPixReceived(ctx, tx, t.OrgID, p.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": showPixReceived(p)}), nil
}
