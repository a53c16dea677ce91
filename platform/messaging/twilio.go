package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kobana/kobana-mcp/platform/tracing"
)

// TwilioBaseURL is where Twilio's REST API lives.
const TwilioBaseURL = "https://api.twilio.com"

// TwilioProvider is the Provider of Twilio's errors.
const TwilioProvider = "twilio"

// Twilio error codes this package names (Twilio's error dictionary).
const (
	// TwilioInvalidTo: the To number is not a valid phone number.
	TwilioInvalidTo = 21211
	// TwilioUnsubscribed: the recipient replied STOP; Twilio refuses to
	// send until they opt in again.
	TwilioUnsubscribed = 21610
	// TwilioNotMobile: the To number cannot receive SMS (a landline).
	TwilioNotMobile = 21614
	// TwilioOutsideWhatsAppWindow: free-form WhatsApp text outside the
	// 24-hour window; send a Template instead.
	TwilioOutsideWhatsAppWindow = 63016
	// TwilioTooManyRequests: Twilio's own rate limit (with HTTP 429).
	TwilioTooManyRequests = 20429
)

// twilioMisconfigured are error codes about our account rather than the
// message: they are temporary (see Error.Misconfigured).
var twilioMisconfigured = map[int]bool{
	20003: true, // authentication failed
	20404: true, // the account (or resource) does not exist
	21212: true, // invalid From number
	21603: true, // From is required
	21606: true, // From is not a number of this account able to send
	21659: true, // From is not a Twilio number
	21701: true, // the messaging service does not exist
	21703: true, // the messaging service has no phone numbers
	63007: true, // no WhatsApp sender with this From address
}

// TwilioConfig configures the Twilio sender.
type TwilioConfig struct {
	// AccountSID ("AC…") names the account in every request's path.
	AccountSID string
	// AuthToken authenticates requests (HTTP Basic AccountSID:AuthToken)
	// unless an API key is set, and is the key of X-Twilio-Signature on
	// status callbacks either way.
	AuthToken string
	// APIKeySID ("SK…") and APIKeySecret, when set, authenticate requests
	// instead of the auth token (Twilio recommends API keys: they can be
	// revoked one by one).
	APIKeySID    string
	APIKeySecret string

	// From is the SMS sender: an E.164 number of the account or an
	// alphanumeric sender ID.
	From string
	// WhatsAppFrom is the WhatsApp sender, an E.164 number ("whatsapp:" is
	// added).
	WhatsAppFrom string
	// MessagingServiceSID ("MG…") sends through a Messaging Service, which
	// picks the sender, for every channel whose From above is empty.
	MessagingServiceSID string
	// StatusCallback is the default public URL for delivery statuses.
	StatusCallback string

	// BaseURL replaces TwilioBaseURL (tests point it at a local server).
	// It must be https, except on a loopback address.
	BaseURL string
	// Timeout bounds one request, connection to last byte (default 15 s).
	Timeout time.Duration
	// HTTPClient replaces the built-in client (for an egress proxy, say);
	// Timeout still bounds each request through the context.
	HTTPClient *http.Client
}

// Twilio sends SMS and WhatsApp messages through Twilio's Messages API
// (POST /2010-04-01/Accounts/{AccountSid}/Messages.json). It is a Sender
// for both channels.
type Twilio struct {
	cfg      TwilioConfig
	endpoint string
	user     string
	pass     string
	http     *http.Client
}

var _ Sender = (*Twilio)(nil)

const (
	defaultTwilioTimeout = 15 * time.Second
	maxTwilioBody        = 1 << 20
)

// NewTwilio checks cfg and returns a sender.
func NewTwilio(cfg TwilioConfig) (*Twilio, error) {
	if cfg.AccountSID == "" {
		return nil, errors.New("messaging: Twilio AccountSID is required")
	}
	if cfg.AuthToken == "" && (cfg.APIKeySID == "" || cfg.APIKeySecret == "") {
		return nil, errors.New("messaging: Twilio needs AuthToken or an API key and secret")
	}
	if cfg.From == "" && cfg.WhatsAppFrom == "" && cfg.MessagingServiceSID == "" {
		return nil, errors.New("messaging: Twilio needs From, WhatsAppFrom or MessagingServiceSID")
	}
	if cfg.WhatsAppFrom != "" && !e164.MatchString(strings.TrimPrefix(cfg.WhatsAppFrom, whatsAppPrefix)) {
		return nil, fmt.Errorf("messaging: Twilio WhatsAppFrom %q is not an E.164 number", cfg.WhatsAppFrom)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = TwilioBaseURL
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || base.Host == "" || (base.Scheme != "https" && base.Scheme != "http") {
		return nil, fmt.Errorf("messaging: Twilio BaseURL %q is not an http(s) URL", cfg.BaseURL)
	}
	if base.Scheme == "http" && !isLoopbackHost(base.Hostname()) {
		// The credentials travel in every request.
		return nil, fmt.Errorf("messaging: Twilio BaseURL %q must be https (http only on loopback)", cfg.BaseURL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTwilioTimeout
	}
	t := &Twilio{
		cfg:      cfg,
		endpoint: base.String() + "/2010-04-01/Accounts/" + url.PathEscape(cfg.AccountSID) + "/Messages.json",
		user:     cfg.AccountSID,
		pass:     cfg.AuthToken,
		http:     cfg.HTTPClient,
	}
	if cfg.APIKeySID != "" {
		t.user, t.pass = cfg.APIKeySID, cfg.APIKeySecret
	}
	if t.http == nil {
		t.http = newHTTPClient(cfg.Timeout)
	}
	return t, nil
}

// newHTTPClient bounds every phase of a request by timeout (Send bounds
// the whole of it with its context), follows no
// redirect (Twilio answers directly; a redirect would be a surprise worth
// an error) and, like the project's other outbound clients, uses no proxy
// from the environment.
func newHTTPClient(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return &http.Client{
		// A send made inside a trace is a CLIENT span (platform/tracing).
		Transport: tracing.NewTransport(&http.Transport{
			Proxy:                  nil,
			DialContext:            dialer.DialContext,
			ForceAttemptHTTP2:      true,
			TLSHandshakeTimeout:    timeout,
			ResponseHeaderTimeout:  timeout,
			MaxResponseHeaderBytes: 64 << 10,
			MaxIdleConns:           16,
			MaxIdleConnsPerHost:    8,
			IdleConnTimeout:        90 * time.Second,
		}),
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

const whatsAppPrefix = "whatsapp:"

// e164 is an international number: "+", a non-zero country code digit,
// at most 15 digits in all (ITU-T E.164).
var e164 = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

// twilioMessage is the part of Twilio's Message resource we read.
type twilioMessage struct {
	SID    string `json:"sid"`
	Status string `json:"status"`
}

// twilioError is Twilio's error body.
type twilioError struct {
	Code     int    `json:"code"`
	Message  string `json:"message"`
	MoreInfo string `json:"more_info"`
	Status   int    `json:"status"`
}

// Send creates the message at Twilio. Success means Twilio queued it
// (Receipt.Status StatusQueued); whether it arrives comes later, in status
// callbacks naming Receipt.ID. Every failure is an *Error.
func (t *Twilio) Send(ctx context.Context, m Message) (Receipt, error) {
	form, err := t.form(m)
	if err != nil {
		return Receipt{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, t.cfg.Timeout)
	defer cancel()
	// Whether the request left us decides MaybeSent when no answer comes.
	// (The transport reports it from its own goroutine.)
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) { wrote.Store(info.Err == nil) },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Receipt{}, t.fail(m.Channel, false, "building the request: "+err.Error(), err)
	}
	req.SetBasicAuth(t.user, t.pass)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kobana-mcp")
	resp, err := t.http.Do(req)
	if err != nil {
		return Receipt{}, t.transportError(ctx, m.Channel, err, wrote.Load())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTwilioBody))
	if err != nil {
		// The status line arrived; after a 2xx the message exists.
		e := t.transportError(ctx, m.Channel, err, false)
		e.Status = resp.StatusCode
		e.MaybeSent = resp.StatusCode >= 200 && resp.StatusCode < 300
		return Receipt{}, e
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		var msg twilioMessage
		if err := json.Unmarshal(body, &msg); err != nil || msg.SID == "" {
			// Twilio said yes but we cannot tell to what: the message most
			// likely exists.
			e := t.fail(m.Channel, false, "unusable answer to a created message", err)
			e.Status, e.MaybeSent = resp.StatusCode, true
			return Receipt{}, e
		}
		status, ok := normaliseTwilioStatus(msg.Status)
		if !ok {
			status = StatusQueued
		}
		return Receipt{Channel: m.Channel, ID: msg.SID, Status: status, Detail: msg.Status}, nil
	}
	return Receipt{}, t.statusError(m.Channel, resp, body)
}

// form builds the request's parameters, refusing what Twilio would refuse
// anyway (a permanent error, with no request made).
func (t *Twilio) form(m Message) (url.Values, error) {
	var from string
	switch m.Channel {
	case SMS:
		from = t.cfg.From
	case WhatsApp:
		from = t.cfg.WhatsAppFrom
	default:
		return nil, t.refuse(m.Channel, fmt.Sprintf("channel %q is not sent through Twilio", m.Channel))
	}
	to := m.To
	if m.Channel == WhatsApp {
		to = strings.TrimPrefix(to, whatsAppPrefix)
	}
	if !e164.MatchString(to) {
		return nil, t.refuse(m.Channel, fmt.Sprintf("to %q is not an E.164 number (+ and up to 15 digits)", m.To))
	}
	if from == "" && t.cfg.MessagingServiceSID == "" {
		e := t.fail(m.Channel, false, fmt.Sprintf("no %s sender configured (From, WhatsAppFrom or MessagingServiceSID)", m.Channel), nil)
		e.Misconfigured = true
		return nil, e
	}
	f := url.Values{}
	if m.Channel == WhatsApp {
		to = whatsAppPrefix + to
		if from != "" {
			from = whatsAppPrefix + strings.TrimPrefix(from, whatsAppPrefix)
		}
	}
	f.Set("To", to)
	if from != "" {
		f.Set("From", from)
	} else {
		f.Set("MessagingServiceSid", t.cfg.MessagingServiceSID)
	}
	switch {
	case m.Template != nil:
		if m.Template.SID == "" {
			return nil, t.refuse(m.Channel, "template without a SID")
		}
		f.Set("ContentSid", m.Template.SID)
		if len(m.Template.Variables) > 0 {
			vars, err := json.Marshal(m.Template.Variables)
			if err != nil {
				return nil, t.refuse(m.Channel, "template variables: "+err.Error())
			}
			f.Set("ContentVariables", string(vars))
		}
	case strings.TrimSpace(m.Text) == "":
		return nil, t.refuse(m.Channel, "empty message text")
	default:
		f.Set("Body", m.Text)
	}
	callback := m.StatusCallback
	if callback == "" {
		callback = t.cfg.StatusCallback
	}
	if callback != "" {
		f.Set("StatusCallback", callback)
	}
	return f, nil
}

func (t *Twilio) fail(ch Channel, permanent bool, msg string, cause error) *Error {
	return &Error{Channel: ch, Provider: TwilioProvider, Permanent: permanent, Message: msg, Err: cause}
}

func (t *Twilio) refuse(ch Channel, msg string) *Error { return t.fail(ch, true, msg, nil) }

// transportError classifies a request that got no (complete) answer:
// always temporary, and MaybeSent once the request was written.
func (t *Twilio) transportError(ctx context.Context, ch Channel, err error, wrote bool) *Error {
	e := t.fail(ch, false, "", err)
	e.MaybeSent = wrote
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		e.Err = ctx.Err()
		if errors.Is(e.Err, context.DeadlineExceeded) {
			e.Message = fmt.Sprintf("no answer within %s", t.cfg.Timeout)
		} else {
			e.Message = "canceled"
		}
	case errors.As(err, &ne) && ne.Timeout():
		// A transport phase timed out just before the context did.
		e.Err = errors.Join(context.DeadlineExceeded, err)
		e.Message = fmt.Sprintf("no answer within %s", t.cfg.Timeout)
	default:
		e.Message = "request failed: " + err.Error()
	}
	return e
}

// statusError classifies an error answer: 408, 429 and 5xx are temporary,
// any other 4xx permanent unless its code is about our configuration.
func (t *Twilio) statusError(ch Channel, resp *http.Response, body []byte) *Error {
	e := t.fail(ch, false, "", nil)
	e.Status = resp.StatusCode
	var te twilioError
	if json.Unmarshal(body, &te) == nil && (te.Code != 0 || te.Message != "") {
		if te.Code != 0 {
			e.Code = strconv.Itoa(te.Code)
		}
		e.Message, e.MoreInfo = te.Message, te.MoreInfo
	} else {
		e.Message = http.StatusText(resp.StatusCode)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusRequestTimeout,
		resp.StatusCode >= 500, te.Code == TwilioTooManyRequests:
		e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"))
		// A gateway error may hide a request Twilio did process.
		e.MaybeSent = resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden, twilioMisconfigured[te.Code]:
		e.Misconfigured = true
	case resp.StatusCode >= 400:
		e.Permanent = true
	default:
		// 1xx or 3xx: not an answer this API gives (redirects are not
		// followed), so BaseURL points somewhere else.
		e.Misconfigured = true
	}
	return e
}

// retryAfter reads a Retry-After header given in seconds (the form rate
// limiters use); a date or garbage gives 0.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
