package bureau

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/tracing"
)

// Bureaus are the credit bureaus a report may go to.
var Bureaus = []string{"serasa", "boa_vista", "spc", "quod"}

// Notary is the provider name of protests.
const Notary = "notary"

// Statuses a provider answers.
const (
	StatusConfirmed = "confirmed"
	StatusPending   = "pending"
	StatusFailed    = "failed"
	StatusRemoved   = "removed"
	StatusCanceled  = "canceled"
)

// SignatureHeader carries a callback's signature.
const SignatureHeader = "X-Bureau-Signature"

// Debtor is who a record is about.
type Debtor struct {
	Name     string `json:"name"`
	Document string `json:"document"`
}

// Request registers a debt: a report with a bureau, or a protest.
type Request struct {
	// Reference is our command's id (also the Idempotency-Key).
	Reference   string `json:"reference"`
	Debtor      Debtor `json:"debtor"`
	AmountCents int64  `json:"amount_cents"`
	DueDate     string `json:"due_date"`
	Description string `json:"description"`
	Creditor    string `json:"creditor"`
	CallbackURL string `json:"callback_url,omitempty"`
}

// Withdrawal takes a record back out: a report's removal or a protest's
// cancellation, with the consent document when there is one.
type Withdrawal struct {
	Reference         string `json:"reference"`
	Reason            string `json:"reason"`
	ConsentDocumentID string `json:"consent_document_id,omitempty"`
	CallbackURL       string `json:"callback_url,omitempty"`
}

// Answer is what the provider said.
type Answer struct {
	Protocol string `json:"protocol"`
	Status   string `json:"status"`
}

// Callback is a later outcome, posted by the provider.
type Callback struct {
	Reference string `json:"reference"`
	Protocol  string `json:"protocol"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
}

// Refusal is a provider's definitive no (HTTP 4xx): retrying will not
// change it.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return "refused: " + r.Reason }

// Provider is one outside party behind the protocol. Submit and Withdraw
// answer a *Refusal for a definitive no; any other error may pass (a
// timeout, a 5xx) and the caller retries with the same reference.
type Provider interface {
	Submit(ctx context.Context, bureau string, r Request) (Answer, error)
	Withdraw(ctx context.Context, bureau, protocol string, w Withdrawal) (Answer, error)
}

// Client speaks the protocol to a provider at Base.
type Client struct {
	Base string
	HTTP *http.Client
}

// NewClient is a Client for base with a per-request timeout.
func NewClient(base string, timeout time.Duration) *Client {
	// A report made inside a trace is a CLIENT span (platform/tracing).
	return &Client{Base: strings.TrimRight(base, "/"), HTTP: &http.Client{Timeout: timeout, Transport: tracing.NewTransport(nil)}}
}

// Submit sends a report to bureau, or a protest when bureau is Notary.
func (c *Client) Submit(ctx context.Context, bureau string, r Request) (Answer, error) {
	path := "/bureaus/" + url.PathEscape(bureau) + "/reports"
	if bureau == Notary {
		path = "/notary/protests"
	}
	return c.do(ctx, http.MethodPost, path, r.Reference, r)
}

// Withdraw removes a report from bureau, or cancels a protest.
func (c *Client) Withdraw(ctx context.Context, bureau, protocol string, w Withdrawal) (Answer, error) {
	if bureau == Notary {
		return c.do(ctx, http.MethodPost, "/notary/protests/"+url.PathEscape(protocol)+"/cancel", w.Reference+":exit", w)
	}
	return c.do(ctx, http.MethodDelete, "/bureaus/"+url.PathEscape(bureau)+"/reports/"+url.PathEscape(protocol), w.Reference+":exit", w)
}

func (c *Client) do(ctx context.Context, method, path, key string, body any) (Answer, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return Answer{}, err
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, bytes.NewReader(b))
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return Answer{}, fmt.Errorf("bureau: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Answer{}, fmt.Errorf("bureau: %s %s: reading the answer: %w", method, path, err)
	}
	switch {
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout:
		return Answer{}, fmt.Errorf("bureau: %s %s: %s", method, path, resp.Status)
	case resp.StatusCode >= 400:
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.Error == "" {
			e.Error = resp.Status
		}
		return Answer{}, &Refusal{Reason: e.Error}
	}
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil || a.Status == "" {
		return Answer{}, fmt.Errorf("bureau: %s %s: an answer without a status: %.200s", method, path, raw)
	}
	return a, nil
}

// Sign is the X-Bureau-Signature of body under secret.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// ErrBadSignature: a callback whose signature does not verify.
var ErrBadSignature = errors.New("bureau: the callback's signature does not verify")

// ReadCallback verifies r's signature under secret and decodes it.
func ReadCallback(r *http.Request, secret []byte) (Callback, error) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		return Callback{}, err
	}
	if !hmac.Equal([]byte(r.Header.Get(SignatureHeader)), []byte(Sign(secret, raw))) {
		return Callback{}, ErrBadSignature
	}
	var cb Callback
	if err := json.Unmarshal(raw, &cb); err != nil {
		return Callback{}, fmt.Errorf("bureau: callback: %w", err)
	}
	return cb, nil
}
