package ledger

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// Payments that reconcile themselves (docs/dunning.md "Dunning: Pix
// received through the PSP's webhook"; docs/decisions.md "Dunning: Pix webhook"): the
// creditor's PSP reports every Pix it received, as the BCB's API Pix
// specifies (Resolução BCB nº 1/2020 and the API Pix manual: POST
// {webhookUrl}/pix with {"pix":[…]}). Each Pix is kept once per
// endToEndId, its txid (PixTxID) names the charge, and it is recorded
// through the one payment path (recordPayment): imputation, caps and
// events as for any payment. What cannot be recorded — an unknown txid,
// a charge not payable, the excess above what the charge owes — waits in
// dunning_pix_received for a person (dunning_pix_received_assign).

// The routes of the webhook. The organization is known from the hook id
// before the body is read; the PSP appends "/pix" to the URL it was
// given, as the API Pix says.
const (
	// PixWebhookSecretPath is the URL of a PSP without mutual TLS, given
	// as PixWebhookSecretPath?secret=…: the secret authenticates it. It
	// rides in the query, which the access log never records
	// (platform/observe), and a PSP appending "/pix" to the URL as a
	// string puts it at the end of the secret ("?secret=…/pix", which is
	// read back), one appending it to the path calls PixWebhookMTLSPath's
	// form with the query kept — both are heard (PSPs such as Efí
	// document this URL form for receivers without mTLS).
	PixWebhookSecretPath = APIBase + "/pix-webhooks/{hook}"
	// PixWebhookMTLSPath is the URL on the mutual-TLS listener
	// (pix_webhook_tls.go): the PSP's client certificate authenticates
	// it.
	PixWebhookMTLSPath = APIBase + "/pix-webhooks/{hook}/pix"
)

// How a Pix webhook call was authenticated (dunning_pix_received.received_via).
const (
	PixViaSecret = "secret"
	PixViaMTLS   = "mtls"
)

// PixWebhookClient names the webhook as the recorder of the payments it
// makes: created_by is "client:pix-webhook".
const PixWebhookClient = "pix-webhook"

// EventPixUnmatched reports a Pix received of which some money waits for
// a person: nothing matched, or the excess above what its charge owed.
const EventPixUnmatched = "dunning.pix.unmatched"

// Why a Pix was not (wholly) recorded (dunning_pix_received.reason).
const (
	PixReasonNoTxID           = "txid_missing"
	PixReasonTxIDUnknown      = "txid_unknown"
	PixReasonChargeNotFound   = "charge_not_found"
	PixReasonChargeNotPayable = "charge_not_payable"
	PixReasonPaidBeforeCharge = "paid_before_charge"
	PixReasonExcess           = "excess"
)

// servePixWebhook answers a Pix webhook call authenticated by via.
func (s *Service) servePixWebhook(via string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		id := r.PathValue("hook")
		if _, err := uuid.Parse(id); err != nil {
			pixWebhookError(w, http.StatusNotFound, "NOT_FOUND", "pix webhook not found")
			return
		}
		hook, err := pixWebhookByID(ctx, s.DB, id)
		if errors.Is(err, store.ErrNotFound) {
			pixWebhookError(w, http.StatusNotFound, "NOT_FOUND", "pix webhook not found")
			return
		}
		if err != nil {
			s.Log.Error("pix webhook: load", "error", err)
			pixWebhookError(w, http.StatusInternalServerError, "INTERNAL", "try again")
			return
		}
		now := s.Clock()
		switch via {
		case PixViaMTLS:
			if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
				pixWebhookError(w, http.StatusUnauthorized, "UNAUTHORIZED", "this URL needs a client certificate (mutual TLS)")
				return
			}
		default:
			secret := strings.TrimSuffix(r.URL.Query().Get("secret"), "/pix")
			if !hook.secretMatches(secret, now) {
				pixWebhookError(w, http.StatusUnauthorized, "UNAUTHORIZED", "the webhook's secret does not match")
				return
			}
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPixWebhookBody))
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			pixWebhookError(w, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", fmt.Sprintf("the body is over %d bytes", maxPixWebhookBody))
			return
		}
		if err != nil {
			pixWebhookError(w, http.StatusBadRequest, "BAD_REQUEST", "the body could not be read")
			return
		}
		pix, err := parsePixWebhook(body, now)
		if err != nil {
			pixWebhookError(w, http.StatusBadRequest, "VALIDATION_ERROR", err.Error())
			return
		}
		sum := pixWebhookSummary{Received: len(pix)}
		for _, p := range pix {
			outcome, err := s.receivePix(ctx, hook.OrganizationID, via, p)
			if err != nil {
				// What was kept before stays kept; the PSP retries the
				// whole call and those are duplicates then.
				s.Log.Error("pix webhook: receive", "organization", hook.OrganizationID, "end_to_end_id", p.EndToEndID, "error", err)
				pixWebhookError(w, http.StatusInternalServerError, "INTERNAL", "try again")
				return
			}
			sum.add(outcome)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(sum)
	}
}

// pixWebhookSummary is a call's answer: what became of its Pix.
type pixWebhookSummary struct {
	Received   int `json:"received"`
	Reconciled int `json:"reconciled"`
	Kept       int `json:"kept_for_assignment"`
	Duplicates int `json:"duplicates"`
}

func (s *pixWebhookSummary) add(outcome string) {
	switch outcome {
	case PixReconciled:
		s.Reconciled++
	case "":
		s.Duplicates++
	default:
		s.Kept++
	}
}

// pixWebhookError answers the PSP with the API's error shape.
func pixWebhookError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// secretSHA256 is how a webhook secret is kept: its SHA-256, in hex. The
// secret is 256 random bits, so a fast hash is enough (no password to
// guess from it).
func secretSHA256(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// secretMatches compares secret with the current one and, until its
// grace ends, the previous one, in constant time.
func (w pixWebhookRow) secretMatches(secret string, now time.Time) bool {
	if secret == "" {
		return false
	}
	got := []byte(secretSHA256(secret))
	ok := subtle.ConstantTimeCompare(got, []byte(w.SecretSHA256)) == 1
	if w.PreviousSHA256 != nil && w.PreviousValidUntil != nil && now.Before(*w.PreviousValidUntil) {
		ok = subtle.ConstantTimeCompare(got, []byte(*w.PreviousSHA256)) == 1 || ok
	}
	return ok
}

// receivePix keeps one Pix the organization's PSP reported and records
// what it can, in one transaction: the Pix is inserted first, and a
// second arrival of its endToEndId (a retry, on any replica) inserts
// nothing and records nothing (outcome ""). Otherwise outcome is its
// status: reconciled, excess or unmatched.
func (s *Service) receivePix(ctx context.Context, orgID, via string, p pixNotified) (outcome string, err error) {
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		now := s.Clock()
		row := pixReceivedRow{ID: store.NewID(), OrganizationID: orgID, EndToEndID: p.EndToEndID, TxID: p.TxID, Amount: p.Amount,
			PaidAt: p.PaidAt, PayerNote: p.PayerNote, ReceivedVia: via, Unassigned: p.Amount, Status: PixUnmatched, ReceivedAt: now}
		inserted, err := insertPixReceived(ctx, tx, row)
		if err != nil || !inserted {
			outcome = ""
			return err
		}
		c, reason, err := s.pixCharge(ctx, tx, orgID, p)
		if err != nil {
			return err
		}
		row.Reason = reason
		if reason == "" {
			st, err := LoadSettings(ctx, tx, orgID)
			if err != nil {
				return err
			}
			b, err := ChargeBreakdown(c, st, st.Today(p.PaidAt))
			if err != nil {
				return err
			}
			apply := min(p.Amount, b.Updated)
			t := restkit.Tenant{OrgID: orgID, Identity: &identity.Identity{OrganizationID: orgID, ClientID: PixWebhookClient}}
			if apply > 0 {
				in := &createPaymentIn{ID: c.ID, Method: "pix", Reference: p.EndToEndID}
				if _, err := s.recordPayment(ctx, tx, t, in, apply, p.PaidAt, now); err != nil {
					return err
				}
			}
			row.ChargeID, row.Applied, row.Unassigned = &c.ID, apply, p.Amount-apply
			row.Status = PixReconciled
			if row.Unassigned > 0 {
				row.Status, row.Reason = PixExcess, PixReasonExcess
			}
		}
		if err := settlePixReceived(ctx, tx, row); err != nil {
			return err
		}
		outcome = row.Status
		if row.Unassigned > 0 {
			return s.emitPixEvent(ctx, tx, EventPixUnmatched, row)
		}
		return nil
	})
	return outcome, err
}

// pixCharge is the charge a Pix pays, or why it has none: no txid, a txid
// Dunning did not write, a charge not of this organization (another's
// txid is not found here), a charge archived or out of collection, a Pix
// paid before the charge could be (paidAtFloor).
func (s *Service) pixCharge(ctx context.Context, tx *store.Tx, orgID string, p pixNotified) (Charge, string, error) {
	if p.TxID == "" {
		return Charge{}, PixReasonNoTxID, nil
	}
	chargeID, err := ChargeIDOfPixTxID(p.TxID)
	if err != nil {
		return Charge{}, PixReasonTxIDUnknown, nil
	}
	c, err := LockCharge(ctx, tx, orgID, chargeID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && c.ID != chargeID) {
		return Charge{}, PixReasonChargeNotFound, nil
	}
	if err != nil {
		return Charge{}, "", err
	}
	if reason := pixPayable(c, p.PaidAt); reason != "" {
		return Charge{}, reason, nil
	}
	return c, "", nil
}

// pixPayable is "" when a Pix paid at paidAt can be recorded against c,
// otherwise why not.
func pixPayable(c Charge, paidAt time.Time) string {
	if c.ArchivedAt != nil || !c.Status.Collectible() {
		return PixReasonChargeNotPayable
	}
	if paidAt.Before(paidAtFloor(c)) {
		return PixReasonPaidBeforeCharge
	}
	return ""
}

// emitPixEvent stores an event about a Pix received, in tx, under the
// organization's home workspace (as the charge events are).
func (s *Service) emitPixEvent(ctx context.Context, tx *store.Tx, slug string, p pixReceivedRow) error {
	acc := s.Accounts.InTx(tx)
	ws, org, err := restkit.EventHome(ctx, acc, p.OrganizationID)
	if err != nil {
		return fmt.Errorf("dunning: emit %s: %w", slug, err)
	}
	data := map[string]any{"pix": showPixReceived(p)}
	data["organization"] = org
	_, err = s.Hooks.Emit(ctx, tx, webhooks.Event{OrganizationID: p.OrganizationID, WorkspaceID: ws.ID, Slug: slug, SubjectID: p.ID, Data: data})
	return err
}

// pixReceivedJSON is a Pix received as the API shows it.
type pixReceivedJSON struct {
	ID         string      `json:"id"`
	EndToEndID string      `json:"end_to_end_id"`
	TxID       string      `json:"txid"`
	Amount     money.Cents `json:"amount"`
	PaidAt     time.Time   `json:"paid_at"`
	PayerNote  string      `json:"payer_note"`
	Via        string      `json:"received_via"`
	ChargeID   *string     `json:"charge_id"`
	Applied    money.Cents `json:"applied_amount"`
	Unassigned money.Cents `json:"unassigned_amount"`
	Dismissed  money.Cents `json:"dismissed_amount"`
	Status     string      `json:"status"`
	Reason     string      `json:"reason"`
	ResolvedBy *string     `json:"resolved_by"`
	ResolvedAt *time.Time  `json:"resolved_at"`
	Note       *string     `json:"note"`
	ReceivedAt time.Time   `json:"received_at"`
}

func showPixReceived(p pixReceivedRow) pixReceivedJSON {
	return pixReceivedJSON{ID: p.ID, EndToEndID: p.EndToEndID, TxID: p.TxID, Amount: p.Amount, PaidAt: p.PaidAt, PayerNote: p.PayerNote,
		Via: p.ReceivedVia, ChargeID: p.ChargeID, Applied: p.Applied, Unassigned: p.Unassigned, Dismissed: p.Dismissed, Status: p.Status,
		Reason: p.Reason, ResolvedBy: p.ResolvedBy, ResolvedAt: p.ResolvedAt, Note: p.Note, ReceivedAt: p.ReceivedAt}
}
