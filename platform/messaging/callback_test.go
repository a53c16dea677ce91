package messaging

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The example of Twilio's webhook security documentation, also the test
// vector of Twilio's helper libraries: auth token "12345", this URL and
// these parameters. Checked by hand:
//
//	printf '%s' 'https://mycompany.com/myapp.php?foo=1&bar=2CallSidCA1234567890ABCDECaller+14158675309Digits1234From+14158675309To+18005551212' \
//	  | openssl dgst -sha1 -hmac 12345 -binary | base64
//	RSOYDt4T1cUTdK1PDd93/VVr8B8=
const (
	vendorToken = "12345"
	vendorURL   = "https://mycompany.com/myapp.php?foo=1&bar=2"
	vendorSig   = "RSOYDt4T1cUTdK1PDd93/VVr8B8="
)

func vendorForm() url.Values {
	return url.Values{
		"CallSid": {"CA1234567890ABCDE"}, "Digits": {"1234"}, "From": {"+14158675309"},
		"To": {"+18005551212"}, "Caller": {"+14158675309"},
	}
}

func TestCallbackSignatureVendorVectors(t *testing.T) {
	t.Parallel()
	if got := CallbackSignature(vendorToken, vendorURL, vendorForm()); got != vendorSig {
		t.Fatalf("signature %q, want %q", got, vendorSig)
	}
	// A name sent twice contributes both values, in order of value:
	//	printf '%s' 'https://mycompany.com/myapp.php?foo=1&bar=2Digits1234Digits5678SidCA123SidAccountAC123' \
	//	  | openssl dgst -sha1 -hmac 12345 -binary | base64
	dup := url.Values{"Sid": {"CA123"}, "SidAccount": {"AC123"}, "Digits": {"5678", "1234"}}
	if got := CallbackSignature(vendorToken, vendorURL, dup); got != "IK+Dwps556ElfBT0I3Rgjkr1wJU=" {
		t.Fatalf("repeated name: %q", got)
	}
}

// TestCallbackSignatureByHand is a status callback as Twilio sends it,
// with the signed string written out: the URL, then each parameter's
// name and value by name. The constant was computed apart from this code:
//
//	printf '%s' '<signed below>' | openssl dgst -sha1 -hmac kobana-test-auth-token-0123456789 -binary | base64
//	cpEJCHh2Bx5aBZFIqsO86A9Ja6I=
func TestCallbackSignatureByHand(t *testing.T) {
	t.Parallel()
	fullURL := "https://dunning.example.com/v1/twilio/status?outbox=0190f3a2-7c4e-7b1a-9d2e-5f6a7b8c9d0e"
	form := statusForm()
	signed := fullURL +
		"AccountSid" + "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" +
		"ErrorCode" + "30003" +
		"From" + "whatsapp:+14155238886" +
		"MessageSid" + "SMbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" +
		"MessageStatus" + "undelivered" +
		"To" + "whatsapp:+5511987654321"
	const want = "cpEJCHh2Bx5aBZFIqsO86A9Ja6I="
	mac := hmac.New(sha1.New, []byte(testAuthToken))
	mac.Write([]byte(signed))
	if byHand := base64.StdEncoding.EncodeToString(mac.Sum(nil)); byHand != want {
		t.Fatalf("the hand-written string signs to %q, want %q", byHand, want)
	}
	if got := CallbackSignature(testAuthToken, fullURL, form); got != want {
		t.Fatalf("CallbackSignature %q, want %q", got, want)
	}
	if !VerifyCallback(testAuthToken, fullURL, form, want) {
		t.Fatal("the right signature was refused")
	}
}

func statusForm() url.Values {
	return url.Values{
		"MessageSid": {"SMbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}, "AccountSid": {testAccountSID},
		"MessageStatus": {"undelivered"}, "ErrorCode": {"30003"},
		"To": {"whatsapp:+5511987654321"}, "From": {"whatsapp:" + testWAFrom},
	}
}

func TestVerifyCallbackRefusesTampering(t *testing.T) {
	t.Parallel()
	fullURL := "https://dunning.example.com/v1/twilio/status?outbox=0190f3a2-7c4e-7b1a-9d2e-5f6a7b8c9d0e"
	sig := CallbackSignature(testAuthToken, fullURL, statusForm())
	tamper := map[string]func(u *string, f url.Values, s *string, token *string){
		"status changed":     func(_ *string, f url.Values, _, _ *string) { f.Set("MessageStatus", "delivered") },
		"error code removed": func(_ *string, f url.Values, _, _ *string) { f.Del("ErrorCode") },
		"parameter added":    func(_ *string, f url.Values, _, _ *string) { f.Set("Price", "0.00") },
		"value repeated":     func(_ *string, f url.Values, _, _ *string) { f.Add("ErrorCode", "30003") },
		"empty value added":  func(_ *string, f url.Values, _, _ *string) { f.Set("Extra", "") },
		"query changed":      func(u *string, _ url.Values, _, _ *string) { *u = strings.Replace(*u, "0190f3a2", "0190f3a3", 1) },
		"query dropped":      func(u *string, _ url.Values, _, _ *string) { *u, _, _ = strings.Cut(*u, "?") },
		"other host":         func(u *string, _ url.Values, _, _ *string) { *u = strings.Replace(*u, "dunning.", "evil.", 1) },
		"http instead":       func(u *string, _ url.Values, _, _ *string) { *u = strings.Replace(*u, "https:", "http:", 1) },
		"other token":        func(_ *string, _ url.Values, _, tok *string) { *tok = "another-token" },
		"empty token":        func(_ *string, _ url.Values, _, tok *string) { *tok = "" },
		"no signature":       func(_ *string, _ url.Values, s, _ *string) { *s = "" },
		"signature cut":      func(_ *string, _ url.Values, s, _ *string) { *s = (*s)[:len(*s)-2] },
		"signature altered":  func(_ *string, _ url.Values, s, _ *string) { *s = "A" + (*s)[1:] },
		"signature spaced":   func(_ *string, _ url.Values, s, _ *string) { *s += " " },
		"name case changed": func(_ *string, f url.Values, _, _ *string) {
			f["messagesid"] = f["MessageSid"]
			delete(f, "MessageSid")
		},
	}
	for name, change := range tamper {
		u, f, s, tok := fullURL, statusForm(), sig, testAuthToken
		change(&u, f, &s, &tok)
		if VerifyCallback(tok, u, f, s) {
			t.Errorf("%s: accepted", name)
		}
	}
	if !VerifyCallback(testAuthToken, fullURL, statusForm(), sig) {
		t.Fatal("the untouched callback was refused")
	}
}

// TestSignatureSchemeLimits pins down what Twilio's scheme does not
// protect, so no caller assumes it does: names and values are joined
// without separators, so moving the boundary between a name and its value
// (where the sort order stays the same) keeps the signature. (Nor is
// anything in it fresh: a captured callback verifies again when replayed.)
// Callers apply statuses idempotently (Status.Supersedes) and read only
// the fields they need.
func TestSignatureSchemeLimits(t *testing.T) {
	t.Parallel()
	fullURL := "https://dunning.example.com/v1/twilio/status"
	sig := CallbackSignature(testAuthToken, fullURL, statusForm())
	moved := statusForm()
	moved.Del("ErrorCode")
	moved.Set("Error", "Code30003") // "ErrorCode"+"30003" = "Error"+"Code30003"
	if !VerifyCallback(testAuthToken, fullURL, moved, sig) {
		t.Fatal("the boundary shift no longer verifies: the scheme changed, check it against Twilio's")
	}
	c, err := ParseCallback(moved)
	if err != nil || c.ErrorCode != 0 || c.Status != StatusFailed {
		t.Fatalf("shifted callback read as %+v %v", c, err)
	}
}

// TestVerifyCallbackPortVariants: Twilio may sign the URL with or without
// the port; both are accepted, and no other port is. Checked by hand:
//
//	printf '%s' 'https://mycompany.com:443/myapp.php?foo=1&bar=2CallSid…To+18005551212' | openssl dgst -sha1 -hmac 12345 -binary | base64
//	kvajT1Ptam85bY51eRf/AJRuM3w=
func TestVerifyCallbackPortVariants(t *testing.T) {
	t.Parallel()
	const with443 = "kvajT1Ptam85bY51eRf/AJRuM3w="
	if got := CallbackSignature(vendorToken, strings.Replace(vendorURL, ".com", ".com:443", 1), vendorForm()); got != with443 {
		t.Fatalf("signature with :443 %q", got)
	}
	for _, c := range []struct {
		url, sig string
		want     bool
	}{
		{vendorURL, vendorSig, true},
		{vendorURL, with443, true}, // Twilio added the port
		{strings.Replace(vendorURL, ".com", ".com:443", 1), vendorSig, true},  // we know the port, Twilio left it out
		{strings.Replace(vendorURL, ".com", ".com:1234", 1), vendorSig, true}, // a proxy's port we were told
		{strings.Replace(vendorURL, ".com", ".com:1234", 1), with443, false},
		{strings.Replace(vendorURL, "https", "http", 1), with443, false},
	} {
		if got := VerifyCallback(vendorToken, c.url, vendorForm(), c.sig); got != c.want {
			t.Errorf("%s with %s: %v", c.url, c.sig, got)
		}
	}
}

func TestParseCallback(t *testing.T) {
	t.Parallel()
	c, err := ParseCallback(statusForm())
	if err != nil {
		t.Fatal(err)
	}
	want := Callback{
		MessageSID: "SMbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", AccountSID: testAccountSID,
		Status: StatusFailed, RawStatus: "undelivered", ErrorCode: 30003,
		Channel: WhatsApp, To: "+5511987654321", From: testWAFrom,
	}
	if c != want {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
	for raw, status := range map[string]Status{
		"queued": StatusQueued, "accepted": StatusQueued, "scheduled": StatusQueued, "sending": StatusQueued,
		"sent": StatusSent, "delivered": StatusDelivered, "read": StatusRead,
		"failed": StatusFailed, "undelivered": StatusFailed, "canceled": StatusFailed,
	} {
		f := url.Values{"MessageSid": {"SM1"}, "MessageStatus": {raw}, "To": {"+5511987654321"}}
		c, err := ParseCallback(f)
		if err != nil || c.Status != status || c.RawStatus != raw || c.Channel != SMS || c.ErrorCode != 0 {
			t.Errorf("%s: %+v %v", raw, c, err)
		}
	}
	// The older field names Twilio still sends alongside.
	if c, err := ParseCallback(url.Values{"SmsSid": {"SM2"}, "SmsStatus": {"sent"}}); err != nil || c.MessageSID != "SM2" || c.Status != StatusSent {
		t.Errorf("SmsSid/SmsStatus: %+v %v", c, err)
	}
	if _, err := ParseCallback(url.Values{"MessageSid": {"SM1"}, "MessageStatus": {"received"}}); !errors.Is(err, ErrUnknownStatus) {
		t.Errorf("inbound status: %v", err)
	}
	if _, err := ParseCallback(url.Values{"MessageSid": {"SM1"}}); !errors.Is(err, ErrUnknownStatus) {
		t.Errorf("no status: %v", err)
	}
	if _, err := ParseCallback(url.Values{"MessageStatus": {"sent"}}); err == nil {
		t.Error("no MessageSid: accepted")
	}
	if _, err := ParseCallback(url.Values{"MessageSid": {"SM1"}, "MessageStatus": {"failed"}, "ErrorCode": {"30x"}}); err == nil {
		t.Error("ErrorCode not a number: accepted")
	}
}

// TestVerifyRequest drives the helper through a real HTTP server behind a
// "proxy": Twilio called the public URL, the server sees another host.
func TestVerifyRequest(t *testing.T) {
	t.Parallel()
	const public = "https://dunning.example.com"
	type outcome struct {
		c   Callback
		err error
	}
	got := make(chan outcome, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := VerifyRequest(r, testAuthToken, public+"/")
		got <- outcome{c, err}
		switch {
		case errors.Is(err, ErrBadSignature):
			w.WriteHeader(http.StatusForbidden)
		case err != nil && !errors.Is(err, ErrUnknownStatus):
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	post := func(path string, form url.Values, sig string) outcome {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		if sig != "" {
			req.Header.Set(TwilioSignatureHeader, sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return <-got
	}
	path := "/v1/twilio/status?outbox=42&channel=whatsapp"
	form := statusForm()
	sig := CallbackSignature(testAuthToken, public+path, form)

	o := post(path, form, sig)
	if o.err != nil || o.c.MessageSID != "SMbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" || o.c.Status != StatusFailed {
		t.Fatalf("signed callback: %+v", o)
	}
	// The query string is signed: a changed outbox id is refused, and the
	// query's fields are not read as the body's.
	if o := post("/v1/twilio/status?outbox=43&channel=whatsapp", form, sig); !errors.Is(o.err, ErrBadSignature) {
		t.Fatalf("changed query: %+v", o)
	}
	changed := statusForm()
	changed.Set("MessageStatus", "delivered")
	if o := post(path, changed, sig); !errors.Is(o.err, ErrBadSignature) {
		t.Fatalf("changed body: %+v", o)
	}
	if o := post(path, form, ""); !errors.Is(o.err, ErrBadSignature) {
		t.Fatalf("unsigned: %+v", o)
	}
	// Signed by Twilio but not a status we know: verified, then refused
	// as unknown.
	inbound := url.Values{"MessageSid": {"SM1"}, "MessageStatus": {"received"}}
	if o := post(path, inbound, CallbackSignature(testAuthToken, public+path, inbound)); !errors.Is(o.err, ErrUnknownStatus) {
		t.Fatalf("inbound: %+v", o)
	}
	// Not a form: refused before any signature is computed.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(`{"MessageSid":"SM1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TwilioSignatureHeader, sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if o := <-got; o.err == nil || errors.Is(o.err, ErrBadSignature) || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("JSON body: %+v %d", o, resp.StatusCode)
	}
}
