package messaging

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// ErrBadSignature is returned by VerifyRequest for a request whose
// X-Twilio-Signature is missing or does not match: it did not come from
// Twilio, or was changed on the way.
var ErrBadSignature = errors.New("messaging: X-Twilio-Signature does not match")

// ErrUnknownStatus is returned by ParseCallback for a MessageStatus this
// package does not know (inbound "received", or one Twilio adds later).
var ErrUnknownStatus = errors.New("messaging: unknown message status")

// TwilioSignatureHeader is the header Twilio signs its requests with.
const TwilioSignatureHeader = "X-Twilio-Signature"

// maxCallbackBody bounds a status callback's body; Twilio's are well
// under 2 KB.
const maxCallbackBody = 64 << 10

// CallbackSignature computes what Twilio puts in X-Twilio-Signature for a
// form-encoded POST to fullURL (Twilio's webhook security documentation):
// base64(HMAC-SHA1(authToken, fullURL + each POST parameter's name and
// value, by name in byte order)). fullURL is the URL exactly as Twilio
// requested it, scheme, host, path and query string included. A name sent
// several times contributes each value, values in byte order, as Twilio's
// own libraries do. Tests of products use it to play Twilio.
func CallbackSignature(authToken, fullURL string, form url.Values) string {
	names := make([]string, 0, len(form))
	for name := range form {
		names = append(names, name)
	}
	sort.Strings(names)
	mac := hmac.New(sha1.New, []byte(authToken))
	io.WriteString(mac, fullURL)
	for _, name := range names {
		values := append([]string(nil), form[name]...)
		sort.Strings(values)
		for _, v := range values {
			io.WriteString(mac, name)
			io.WriteString(mac, v)
		}
	}
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// VerifyCallback reports whether signature (the X-Twilio-Signature
// header) is Twilio's signature of a POST of form to fullURL under
// authToken. form must hold the POST body's parameters only: query
// parameters are part of fullURL (net/http's Request.Form mixes both;
// use PostForm, or VerifyRequest). The comparison takes constant time.
//
// Twilio does not always sign the URL with the port as it was given, so
// like Twilio's libraries this also accepts the signature of fullURL with
// its port removed, or with the scheme's default port added when it has
// none.
func VerifyCallback(authToken, fullURL string, form url.Values, signature string) bool {
	if authToken == "" || signature == "" {
		return false
	}
	got := []byte(signature)
	ok := false
	for _, u := range urlVariants(fullURL) {
		want := []byte(CallbackSignature(authToken, u, form))
		// Every variant is checked, so the time taken does not depend
		// on which one matched.
		if hmac.Equal(want, got) {
			ok = true
		}
	}
	return ok
}

// urlVariants is fullURL and the same URL with its port removed, or with
// the default port added when it has none.
func urlVariants(fullURL string) []string {
	u, err := url.Parse(fullURL)
	if err != nil || u.Host == "" {
		return []string{fullURL}
	}
	other := *u
	if u.Port() != "" {
		other.Host = u.Hostname()
		if strings.Contains(other.Host, ":") {
			other.Host = "[" + other.Host + "]"
		}
	} else {
		port := "443"
		if u.Scheme == "http" {
			port = "80"
		}
		other.Host = u.Host + ":" + port
	}
	return []string{fullURL, other.String()}
}

// Callback is a delivery-status callback from Twilio.
type Callback struct {
	// MessageSID is the Receipt.ID of the message it is about.
	MessageSID string
	AccountSID string
	// Status is the normalised status; RawStatus Twilio's word for it.
	Status    Status
	RawStatus string
	// ErrorCode is Twilio's error code for a failed or undelivered
	// message (30003 unreachable, 30005 unknown number, 30006 landline,
	// 30007 filtered as spam, 63016 outside the WhatsApp window…); 0 when
	// there is none.
	ErrorCode int
	// Channel is WhatsApp when the numbers carry "whatsapp:", else SMS.
	Channel Channel
	// To and From are the numbers without "whatsapp:".
	To, From string
}

// ParseCallback reads a status callback's form fields (MessageSid,
// MessageStatus, ErrorCode, AccountSid, To, From). Verify the signature
// first: ParseCallback trusts what it reads.
func ParseCallback(form url.Values) (Callback, error) {
	c := Callback{
		MessageSID: form.Get("MessageSid"),
		AccountSID: form.Get("AccountSid"),
		RawStatus:  form.Get("MessageStatus"),
		To:         strings.TrimPrefix(form.Get("To"), whatsAppPrefix),
		From:       strings.TrimPrefix(form.Get("From"), whatsAppPrefix),
		Channel:    SMS,
	}
	if c.MessageSID == "" {
		// SmsSid is the older name of the same field.
		c.MessageSID = form.Get("SmsSid")
	}
	if c.RawStatus == "" {
		c.RawStatus = form.Get("SmsStatus")
	}
	if c.MessageSID == "" {
		return Callback{}, errors.New("messaging: callback without MessageSid")
	}
	status, ok := normaliseTwilioStatus(c.RawStatus)
	if !ok {
		return Callback{}, fmt.Errorf("%w %q", ErrUnknownStatus, c.RawStatus)
	}
	c.Status = status
	if v := strings.TrimSpace(form.Get("ErrorCode")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return Callback{}, fmt.Errorf("messaging: callback ErrorCode %q is not a number", v)
		}
		c.ErrorCode = n
	}
	if strings.HasPrefix(form.Get("To"), whatsAppPrefix) || strings.HasPrefix(form.Get("From"), whatsAppPrefix) {
		c.Channel = WhatsApp
	}
	return c, nil
}

// normaliseTwilioStatus maps Twilio's message statuses (outbound ones
// only) to Status.
func normaliseTwilioStatus(s string) (Status, bool) {
	switch s {
	case "queued", "accepted", "scheduled", "sending":
		return StatusQueued, true
	case "sent":
		return StatusSent, true
	case "delivered":
		return StatusDelivered, true
	case "read":
		return StatusRead, true
	case "failed", "undelivered", "canceled":
		return StatusFailed, true
	}
	return "", false
}

// VerifyRequest reads a status callback request, checks its signature
// and parses it. publicBase is the scheme and host Twilio was given (the
// product's public URL, e.g. "https://dunning.example.com"): behind a
// reverse proxy the request itself does not say what Twilio called. The
// path and query come from the request. The body is read (at most
// 64 KiB), so the handler must not read it again.
//
// A bad or missing signature is ErrBadSignature (answer 403); an unknown
// status ErrUnknownStatus (answer 200 and ignore it: a signed callback
// that will never parse gains nothing from being sent again).
func VerifyRequest(r *http.Request, authToken, publicBase string) (Callback, error) {
	if r.Method != http.MethodPost {
		return Callback{}, fmt.Errorf("messaging: callback method %s, want POST", r.Method)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-www-form-urlencoded" {
		return Callback{}, fmt.Errorf("messaging: callback content type %q, want a form", r.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCallbackBody+1))
	if err != nil {
		return Callback{}, fmt.Errorf("messaging: reading the callback: %w", err)
	}
	if len(body) > maxCallbackBody {
		return Callback{}, errors.New("messaging: callback body too large")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return Callback{}, fmt.Errorf("messaging: callback body: %w", err)
	}
	// The request target as it arrived, not as net/http re-escaped it:
	// the signature covers Twilio's bytes.
	target := r.RequestURI
	if target == "" || !strings.HasPrefix(target, "/") {
		target = r.URL.RequestURI()
	}
	fullURL := strings.TrimRight(publicBase, "/") + target
	if !VerifyCallback(authToken, fullURL, form, r.Header.Get(TwilioSignatureHeader)) {
		return Callback{}, ErrBadSignature
	}
	return ParseCallback(form)
}
