package messaging

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testAccountSID = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	testAuthToken  = "kobana-test-auth-token-0123456789"
	testAPIKey     = "SKcccccccccccccccccccccccccccccccc"
	testAPISecret  = "kobana-test-api-secret"
	testSMSFrom    = "+15005550006"
	testWAFrom     = "+14155238886"
	testService    = "MGdddddddddddddddddddddddddddddddd"
)

// Numbers the fake answers specially. The first ones are the magic
// numbers of Twilio's test credentials, with the same error codes; the
// last ones are ours.
const (
	numInvalid      = "+15005550001" // 21211 invalid To
	numUnsubscribed = "+15005550004" // 21610 replied STOP
	numLandline     = "+15005550009" // 21614 not a mobile number
	numRateLimited  = "+15005550429" // HTTP 429, Retry-After: 7
	numServerError  = "+15005550500" // HTTP 500
	numBadGateway   = "+15005550502" // HTTP 502 without a Twilio body
	numSlow         = "+15005550100" // no answer until the client gives up
	numGarbled      = "+15005550200" // 201 with a body that is not a message
	numOK           = "+5511987654321"
)

// fakeTwilio speaks the part of Twilio's Messages API the sender uses:
// it checks the path, Basic credentials, the content type and the form
// fields as Twilio would, and answers as Twilio does (201 with the
// Message resource, 4xx/5xx with Twilio's error JSON).
type fakeTwilio struct {
	t     *testing.T
	mu    sync.Mutex
	forms []url.Values
}

func newFakeTwilio(t *testing.T) (*fakeTwilio, *httptest.Server) {
	f := &fakeTwilio{t: t}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeTwilio) received() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.forms...)
}

func twilioErr(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"code": code, "message": msg, "status": status,
		"more_info": fmt.Sprintf("https://www.twilio.com/docs/errors/%d", code),
	})
}

var fakeE164 = regexp.MustCompile(`^(whatsapp:)?\+[1-9][0-9]{1,14}$`)

func (f *fakeTwilio) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		twilioErr(w, http.StatusMethodNotAllowed, 20004, "Method not allowed")
		return
	}
	if r.URL.Path != "/2010-04-01/Accounts/"+testAccountSID+"/Messages.json" {
		twilioErr(w, http.StatusNotFound, 20404, "The requested resource "+r.URL.Path+" was not found")
		return
	}
	user, pass, ok := r.BasicAuth()
	if !ok || !((user == testAccountSID && pass == testAuthToken) || (user == testAPIKey && pass == testAPISecret)) {
		twilioErr(w, http.StatusUnauthorized, 20003, "Authenticate")
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		twilioErr(w, http.StatusUnsupportedMediaType, 20415, "Unsupported media type")
		return
	}
	if err := r.ParseForm(); err != nil {
		twilioErr(w, http.StatusBadRequest, 20001, "Bad form")
		return
	}
	form := r.PostForm
	f.mu.Lock()
	f.forms = append(f.forms, form)
	f.mu.Unlock()

	to, from, service := form.Get("To"), form.Get("From"), form.Get("MessagingServiceSid")
	switch {
	case to == "":
		twilioErr(w, http.StatusBadRequest, 21604, "A 'To' phone number is required.")
		return
	case from == "" && service == "":
		twilioErr(w, http.StatusBadRequest, 21603, "A 'From' phone number is required.")
		return
	case form.Get("Body") == "" && form.Get("ContentSid") == "":
		twilioErr(w, http.StatusBadRequest, 21602, "Message body is required.")
		return
	case !fakeE164.MatchString(to):
		twilioErr(w, http.StatusBadRequest, TwilioInvalidTo, "The 'To' number "+to+" is not a valid phone number.")
		return
	case from != "" && strings.HasPrefix(to, "whatsapp:") != strings.HasPrefix(from, "whatsapp:"):
		twilioErr(w, http.StatusBadRequest, 63007, "Twilio could not find a Channel with the specified From address")
		return
	}
	switch strings.TrimPrefix(to, "whatsapp:") {
	case numInvalid:
		twilioErr(w, http.StatusBadRequest, TwilioInvalidTo, "The 'To' number "+to+" is not a valid phone number.")
		return
	case numUnsubscribed:
		twilioErr(w, http.StatusBadRequest, TwilioUnsubscribed, "Attempt to send to unsubscribed recipient")
		return
	case numLandline:
		twilioErr(w, http.StatusBadRequest, TwilioNotMobile, "'To' number is not a valid mobile number")
		return
	case numRateLimited:
		w.Header().Set("Retry-After", "7")
		twilioErr(w, http.StatusTooManyRequests, TwilioTooManyRequests, "Too Many Requests")
		return
	case numServerError:
		twilioErr(w, http.StatusInternalServerError, 20500, "Internal Server Error")
		return
	case numBadGateway:
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>bad gateway</html>"))
		return
	case numSlow:
		select {
		case <-r.Context().Done(): // the client gave up and closed
		case <-time.After(30 * time.Second):
		}
		return
	case numGarbled:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"unexpected": tru`))
		return
	}
	sid := make([]byte, 16)
	_, _ = rand.Read(sid)
	status := "queued"
	if from == "" {
		status = "accepted" // a Messaging Service picks the sender later
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"sid": "SM" + hex.EncodeToString(sid), "account_sid": testAccountSID, "status": status,
		"to": to, "from": from, "messaging_service_sid": service, "body": form.Get("Body"),
		"error_code": nil, "error_message": nil, "api_version": "2010-04-01",
	})
}

func newTestTwilio(t *testing.T, base string, change func(*TwilioConfig)) *Twilio {
	t.Helper()
	cfg := TwilioConfig{
		AccountSID: testAccountSID, AuthToken: testAuthToken,
		From: testSMSFrom, WhatsAppFrom: testWAFrom,
		StatusCallback: "https://dunning.example.com/v1/twilio/status",
		BaseURL:        base, Timeout: 5 * time.Second,
	}
	if change != nil {
		change(&cfg)
	}
	tw, err := NewTwilio(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tw
}

func TestTwilioSendsSMS(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeTwilio(t)
	tw := newTestTwilio(t, srv.URL, nil)
	r, err := tw.Send(context.Background(), Message{Channel: SMS, To: numOK, Text: "Sua fatura de R$ 123,45 vence amanhã."})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^SM[0-9a-f]{32}$`).MatchString(r.ID) || r.Status != StatusQueued || r.Detail != "queued" || r.Channel != SMS {
		t.Fatalf("receipt %+v", r)
	}
	forms := fake.received()
	if len(forms) != 1 {
		t.Fatalf("%d requests", len(forms))
	}
	want := url.Values{
		"To": {numOK}, "From": {testSMSFrom}, "Body": {"Sua fatura de R$ 123,45 vence amanhã."},
		"StatusCallback": {"https://dunning.example.com/v1/twilio/status"},
	}
	if got := forms[0]; got.Encode() != want.Encode() {
		t.Fatalf("form\n got %v\nwant %v", got, want)
	}
}

func TestTwilioSendsWhatsApp(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeTwilio(t)
	tw := newTestTwilio(t, srv.URL, nil)
	cb := "https://dunning.example.com/v1/twilio/status?outbox=42"
	r, err := tw.Send(context.Background(), Message{Channel: WhatsApp, To: numOK, Text: "Olá", StatusCallback: cb})
	if err != nil {
		t.Fatal(err)
	}
	if r.Channel != WhatsApp || r.Status != StatusQueued {
		t.Fatalf("receipt %+v", r)
	}
	// A template: ContentSid and ContentVariables as JSON, no Body. The
	// recipient already carrying the prefix is accepted as is.
	_, err = tw.Send(context.Background(), Message{Channel: WhatsApp, To: "whatsapp:" + numOK,
		Template: &Template{SID: "HXeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", Variables: map[string]string{"1": "Maria", "2": "R$ 123,45"}}})
	if err != nil {
		t.Fatal(err)
	}
	forms := fake.received()
	if len(forms) != 2 {
		t.Fatalf("%d requests", len(forms))
	}
	first := forms[0]
	if first.Get("To") != "whatsapp:"+numOK || first.Get("From") != "whatsapp:"+testWAFrom || first.Get("StatusCallback") != cb || first.Get("Body") != "Olá" {
		t.Fatalf("first form %v", first)
	}
	second := forms[1]
	if second.Get("To") != "whatsapp:"+numOK || second.Get("ContentSid") != "HXeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee" || second.Has("Body") {
		t.Fatalf("template form %v", second)
	}
	var vars map[string]string
	if err := json.Unmarshal([]byte(second.Get("ContentVariables")), &vars); err != nil || vars["1"] != "Maria" || vars["2"] != "R$ 123,45" {
		t.Fatalf("ContentVariables %q: %v", second.Get("ContentVariables"), err)
	}
}

func TestTwilioMessagingServiceAndAPIKey(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeTwilio(t)
	tw := newTestTwilio(t, srv.URL, func(c *TwilioConfig) {
		c.From, c.WhatsAppFrom, c.MessagingServiceSID = "", "", testService
		c.AuthToken, c.APIKeySID, c.APIKeySecret = "", testAPIKey, testAPISecret
	})
	for _, ch := range []Channel{SMS, WhatsApp} {
		r, err := tw.Send(context.Background(), Message{Channel: ch, To: numOK, Text: "x"})
		if err != nil {
			t.Fatalf("%s: %v", ch, err)
		}
		if r.Status != StatusQueued || r.Detail != "accepted" {
			t.Fatalf("%s receipt %+v", ch, r)
		}
	}
	for i, f := range fake.received() {
		if f.Get("MessagingServiceSid") != testService || f.Has("From") {
			t.Fatalf("request %d: %v", i, f)
		}
	}
}

func sendErr(t *testing.T, tw *Twilio, m Message) *Error {
	t.Helper()
	_, err := tw.Send(context.Background(), m)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %T %v, want *Error", m.To, err, err)
	}
	if e.Provider != TwilioProvider || e.Channel != m.Channel {
		t.Fatalf("%s: %+v", m.To, e)
	}
	return e
}

func TestTwilioClassifiesErrorAnswers(t *testing.T) {
	t.Parallel()
	_, srv := newFakeTwilio(t)
	tw := newTestTwilio(t, srv.URL, nil)
	cases := []struct {
		to                              string
		channel                         Channel
		status                          int
		code                            string
		permanent, misconfigured, maybe bool
		retryAfter                      time.Duration
		messagePart                     string
	}{
		{to: numInvalid, status: 400, code: "21211", permanent: true, messagePart: "not a valid phone number"},
		{to: numUnsubscribed, status: 400, code: "21610", permanent: true, messagePart: "unsubscribed"},
		{to: numLandline, status: 400, code: "21614", permanent: true},
		{to: numInvalid, channel: WhatsApp, status: 400, code: "21211", permanent: true},
		{to: numRateLimited, status: 429, code: "20429", retryAfter: 7 * time.Second},
		{to: numServerError, status: 500, code: "20500"},
		{to: numBadGateway, status: 502, maybe: true, messagePart: "Bad Gateway"},
	}
	for _, c := range cases {
		if c.channel == "" {
			c.channel = SMS
		}
		e := sendErr(t, tw, Message{Channel: c.channel, To: c.to, Text: "x"})
		if e.Status != c.status || e.Code != c.code || e.Permanent != c.permanent || e.Misconfigured != c.misconfigured ||
			e.MaybeSent != c.maybe || e.RetryAfter != c.retryAfter || !strings.Contains(e.Message, c.messagePart) {
			t.Errorf("%s %s: %+v", c.channel, c.to, e)
		}
		if IsPermanent(e) != c.permanent || IsTemporary(e) == c.permanent {
			t.Errorf("%s: IsPermanent %v IsTemporary %v", c.to, IsPermanent(e), IsTemporary(e))
		}
		if c.code != "" && e.MoreInfo != "https://www.twilio.com/docs/errors/"+c.code {
			t.Errorf("%s: more_info %q", c.to, e.MoreInfo)
		}
	}
}

// TestTwilioAmbiguousOutcomes: when Twilio may have created the message
// without our knowing its SID, the error is temporary and says MaybeSent.
func TestTwilioAmbiguousOutcomes(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeTwilio(t)
	tw := newTestTwilio(t, srv.URL, func(c *TwilioConfig) { c.Timeout = 500 * time.Millisecond })

	e := sendErr(t, tw, Message{Channel: SMS, To: numSlow, Text: "x"})
	if e.Permanent || !e.MaybeSent || !errors.Is(e, context.DeadlineExceeded) || e.Status != 0 {
		t.Fatalf("slow answer: %+v", e)
	}
	e = sendErr(t, tw, Message{Channel: SMS, To: numGarbled, Text: "x"})
	if e.Permanent || !e.MaybeSent || e.Status != http.StatusCreated {
		t.Fatalf("garbled 201: %+v", e)
	}
	if n := len(fake.received()); n != 2 {
		t.Fatalf("%d requests reached the server", n)
	}

	// Nothing listening: the request never left, so it was not sent.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	e = sendErr(t, newTestTwilio(t, deadURL, nil), Message{Channel: SMS, To: numOK, Text: "x"})
	if e.Permanent || e.MaybeSent {
		t.Fatalf("connection refused: %+v", e)
	}
}

func TestTwilioHonoursCallerCancel(t *testing.T) {
	t.Parallel()
	_, srv := newFakeTwilio(t)
	tw := newTestTwilio(t, srv.URL, func(c *TwilioConfig) { c.Timeout = time.Minute })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := tw.Send(ctx, Message{Channel: SMS, To: numSlow, Text: "x"})
	if !errors.Is(err, context.Canceled) || !IsTemporary(err) {
		t.Fatalf("canceled send: %v", err)
	}
}

func TestTwilioCredentialsRefused(t *testing.T) {
	t.Parallel()
	_, srv := newFakeTwilio(t)
	tw := newTestTwilio(t, srv.URL, func(c *TwilioConfig) { c.AuthToken = "wrong" })
	e := sendErr(t, tw, Message{Channel: SMS, To: numOK, Text: "x"})
	if e.Permanent || !e.Misconfigured || e.Status != 401 || e.Code != "20003" {
		t.Fatalf("wrong token: %+v", e)
	}
	tw = newTestTwilio(t, srv.URL, func(c *TwilioConfig) { c.AccountSID = "ACffffffffffffffffffffffffffffffff" })
	e = sendErr(t, tw, Message{Channel: SMS, To: numOK, Text: "x"})
	if e.Permanent || !e.Misconfigured || e.Status != 404 || e.Code != "20404" {
		t.Fatalf("wrong account: %+v", e)
	}
}

// TestTwilioRefusesLocally: what Twilio would refuse is refused without
// a request, as permanent (or, with no sender configured, misconfigured).
func TestTwilioRefusesLocally(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeTwilio(t)
	tw := newTestTwilio(t, srv.URL, nil)
	for _, m := range []Message{
		{Channel: SMS, To: "11987654321", Text: "x"},       // no +
		{Channel: SMS, To: "+0123", Text: "x"},             // country code 0
		{Channel: SMS, To: "+1234567890123456", Text: "x"}, // 16 digits
		{Channel: SMS, To: "whatsapp:" + numOK, Text: "x"}, // a WhatsApp address on SMS
		{Channel: SMS, To: numOK, Text: "  "},
		{Channel: WhatsApp, To: numOK, Template: &Template{}},
		{Channel: Email, To: "ana@example.com", Text: "x"},
		{Channel: "fax", To: numOK, Text: "x"},
	} {
		if e := sendErr(t, tw, m); !e.Permanent {
			t.Errorf("%+v: %+v, want permanent", m, e)
		}
	}
	smsOnly := newTestTwilio(t, srv.URL, func(c *TwilioConfig) { c.WhatsAppFrom = "" })
	if e := sendErr(t, smsOnly, Message{Channel: WhatsApp, To: numOK, Text: "x"}); e.Permanent || !e.Misconfigured {
		t.Errorf("WhatsApp without a sender: %+v", e)
	}
	if n := len(fake.received()); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}
}

func TestNewTwilioChecksConfig(t *testing.T) {
	t.Parallel()
	ok := TwilioConfig{AccountSID: testAccountSID, AuthToken: testAuthToken, From: testSMSFrom}
	for name, change := range map[string]func(*TwilioConfig){
		"no account":          func(c *TwilioConfig) { c.AccountSID = "" },
		"no credentials":      func(c *TwilioConfig) { c.AuthToken = "" },
		"key without secret":  func(c *TwilioConfig) { c.AuthToken, c.APIKeySID = "", testAPIKey },
		"no sender":           func(c *TwilioConfig) { c.From = "" },
		"bad WhatsApp sender": func(c *TwilioConfig) { c.WhatsAppFrom = "14155238886" },
		"http to a host":      func(c *TwilioConfig) { c.BaseURL = "http://api.twilio.com" },
		"not a URL":           func(c *TwilioConfig) { c.BaseURL = "api.twilio.com" },
	} {
		cfg := ok
		change(&cfg)
		if _, err := NewTwilio(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	tw, err := NewTwilio(ok)
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://api.twilio.com/2010-04-01/Accounts/" + testAccountSID + "/Messages.json"; tw.endpoint != want {
		t.Fatalf("endpoint %q", tw.endpoint)
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	e := &Error{Provider: "twilio", Permanent: true, Status: 400, Code: "21211", Message: "The 'To' number is not valid."}
	if got := e.Error(); got != "twilio: permanent: 400 21211: The 'To' number is not valid." {
		t.Fatal(got)
	}
	e = &Error{Provider: "smtp", Message: "no answer within 30s", Err: context.DeadlineExceeded}
	if got := e.Error(); got != "smtp: temporary: no answer within 30s" || !errors.Is(e, context.DeadlineExceeded) {
		t.Fatal(got)
	}
	wrapped := fmt.Errorf("sending reminder 42: %w", e)
	if !IsTemporary(wrapped) || IsPermanent(wrapped) {
		t.Fatal("classification lost through wrapping")
	}
	if plain := errors.New("bug"); IsTemporary(plain) || IsPermanent(plain) {
		t.Fatal("a foreign error was classified")
	}
}

func TestStatusSupersedes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		next, old Status
		want      bool
	}{
		{StatusSent, StatusQueued, true},
		{StatusDelivered, StatusSent, true},
		{StatusFailed, StatusSent, true},
		{StatusRead, StatusDelivered, true},
		{StatusSent, StatusDelivered, false}, // a late "sent"
		{StatusQueued, StatusSent, false},
		{StatusFailed, StatusDelivered, false},
		{StatusDelivered, StatusFailed, false},
		{StatusDelivered, StatusDelivered, false},
		{StatusQueued, "", true},
	} {
		if got := c.next.Supersedes(c.old); got != c.want {
			t.Errorf("%s supersedes %s: %v", c.next, c.old, got)
		}
	}
}
