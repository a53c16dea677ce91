package dunning

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/mail"
	"github.com/kobana/kobana-mcp/platform/messaging"
	"github.com/kobana/kobana-mcp/platform/store"
)

// ntSettings stores the organization's settings with these channels
// (the rest at their defaults).
func ntSettings(t testing.TB, db *store.DB, orgID string, channels map[string]ledger.ChannelSetting, graceDays int) {
	t.Helper()
	st := ledger.DefaultSettings(orgID)
	for k, v := range channels {
		st.Channels[k] = v
	}
	b, _ := json.Marshal(st.Channels)
	if _, err := db.Exec(context.Background(), `INSERT INTO dunning_settings (organization_id, timezone, quiet_start, quiet_end, grace_days,
		channels, company_fine_cap, closed_days, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, '[]', ?)
		ON CONFLICT (organization_id) DO UPDATE SET channels = excluded.channels, grace_days = excluded.grace_days`,
		orgID, st.Timezone, st.QuietStart, st.QuietEnd, graceDays, string(b), st.CompanyFineCap, store.Now()); err != nil {
		t.Fatal(err)
	}
}

// ntNotifications are every notification of the organization, oldest
// first.
func ntNotifications(t testing.TB, db *store.DB, orgID string) []notify.Notification {
	t.Helper()
	var out []notify.Notification
	if err := db.Select(context.Background(), &out, `SELECT `+notify.NotificationColumns+` FROM dunning_notifications
		WHERE organization_id = ? ORDER BY created_at, id`, orgID); err != nil {
		t.Fatal(err)
	}
	return out
}

func ntNotification(t testing.TB, db *store.DB, id string) notify.Notification {
	t.Helper()
	n, err := notify.GetNotificationByID(context.Background(), db, id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitNotification waits until notification id is in one of statuses.
func waitNotification(t testing.TB, db *store.DB, id string, statuses ...string) notify.Notification {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for {
		n := ntNotification(t, db, id)
		for _, s := range statuses {
			if n.Status == s {
				return n
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("notification %s is %s (error %v), want %v", id, n.Status, deref(n.Error), statuses)
		}
		time.Sleep(testPoll)
	}
}

// ntEvents are the organization's Dunning events, oldest first.
func ntEvents(t testing.TB, db *store.DB, orgID string) []string {
	t.Helper()
	var out []string
	if err := db.Select(context.Background(), &out, `SELECT slug FROM system_events WHERE organization_id = ? AND product = 'dunning'
		ORDER BY created_at, id`, orgID); err != nil {
		t.Fatal(err)
	}
	return out
}

// A relay in the test process: go-smtp's server with a backend that
// records every message it is given.

type ntRelayMessage struct {
	From string
	To   []string
	Data string
	User string
}

type ntRelay struct {
	mu   sync.Mutex
	msgs []ntRelayMessage
	// rcptErr refuses RCPT TO for an address.
	rcptErr map[string]*smtp.SMTPError
}

func (b *ntRelay) messages() []ntRelayMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]ntRelayMessage(nil), b.msgs...)
}

func (b *ntRelay) NewSession(*smtp.Conn) (smtp.Session, error) { return &ntRelaySession{b: b}, nil }

type ntRelaySession struct {
	b   *ntRelay
	cur ntRelayMessage
}

func (s *ntRelaySession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *ntRelaySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != "dunning" || pass != "relay-secret" {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.cur.User = user
		return nil
	}), nil
}
func (s *ntRelaySession) Mail(from string, _ *smtp.MailOptions) error {
	if s.cur.User == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}
	}
	s.cur.From = from
	return nil
}
func (s *ntRelaySession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err, ok := s.b.rcptErr[to]; ok {
		return err
	}
	s.cur.To = append(s.cur.To, to)
	return nil
}
func (s *ntRelaySession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = string(b)
	s.b.mu.Lock()
	s.b.msgs = append(s.b.msgs, s.cur)
	s.b.mu.Unlock()
	return nil
}
func (s *ntRelaySession) Reset()        { s.cur = ntRelayMessage{User: s.cur.User} }
func (s *ntRelaySession) Logout() error { return nil }

// ntStartRelay serves b on loopback (clear text with AUTH, which the mail
// client allows to a loopback relay only) and returns the SMTP settings
// that reach it.
func ntStartRelay(t testing.TB, b *ntRelay) *mail.Config {
	t.Helper()
	s := smtp.NewServer(b)
	s.Domain = "relay.test"
	s.AllowInsecureAuth = true
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return &mail.Config{Host: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, TLS: mail.TLSNone, Username: "dunning",
		Password: "relay-secret", From: "Cobrança Mine <cobranca@mine.example>", Timeout: 5 * time.Second, SendTimeout: 20 * time.Second}
}

// A local server speaking the part of Twilio's Messages API the sender
// uses, recording every request; numbers in script answer specially.

const (
	ntTwilioSID   = "ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	ntTwilioToken = "dunning-test-auth-token"
	ntTwilioFrom  = "+15005550006"
	ntTwilioWA    = "+14155238886"
)

type ntTwilio struct {
	*httptest.Server
	mu    sync.Mutex
	forms []url.Values
	// at is when each request of forms arrived.
	at []time.Time
	// script answers a To number: "hang" holds the request until the
	// client goes away; "500", "400" answer that status (400 with Twilio's
	// invalid-number error) while the count lasts.
	script map[string][]string
	// arrived receives each request's To as it arrives.
	arrived chan string
	closing chan struct{}
	n       int
}

func ntNewTwilio(t testing.TB) *ntTwilio {
	f := &ntTwilio{script: map[string][]string{}, arrived: make(chan string, 1000), closing: make(chan struct{})}
	f.Server = httptest.NewServer(f)
	t.Cleanup(func() {
		close(f.closing)
		f.Close()
	})
	return f
}

func (f *ntTwilio) requests() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.forms...)
}

// arrivals are when each request arrived, in order.
func (f *ntTwilio) arrivals() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.at...)
}

func (f *ntTwilio) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	user, pass, ok := r.BasicAuth()
	if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+ntTwilioSID+"/Messages.json" || !ok || user != ntTwilioSID || pass != ntTwilioToken {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"code":20003,"message":"Authenticate","status":401}`))
		return
	}
	_ = r.ParseForm()
	to := strings.TrimPrefix(r.PostForm.Get("To"), "whatsapp:")
	f.mu.Lock()
	f.forms = append(f.forms, r.PostForm)
	f.at = append(f.at, time.Now())
	action := ""
	if s := f.script[to]; len(s) > 0 {
		action, f.script[to] = s[0], s[1:]
	}
	f.n++
	sid := fmt.Sprintf("SM%032d", f.n)
	f.mu.Unlock()
	f.arrived <- to
	w.Header().Set("Content-Type", "application/json")
	switch action {
	case "hang":
		select {
		case <-r.Context().Done():
		case <-f.closing:
		}
		return
	case "500":
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"code":20500,"message":"Internal Server Error","status":500}`))
		return
	case "400":
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"code":21211,"message":"The 'To' number is not a valid phone number.","status":400}`))
		return
	}
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"sid": sid, "account_sid": ntTwilioSID, "status": "queued", "to": r.PostForm.Get("To")})
}

func (f *ntTwilio) config() *messaging.TwilioConfig {
	return &messaging.TwilioConfig{AccountSID: ntTwilioSID, AuthToken: ntTwilioToken, From: ntTwilioFrom, WhatsAppFrom: ntTwilioWA,
		BaseURL: f.URL, Timeout: 5 * time.Second}
}

// callback posts a signed status callback as Twilio does: to the
// StatusCallback the message carried (its path, on the test listener),
// signed over that URL.
func (ne *dunEnv) callback(t testing.TB, statusCallback string, form url.Values, token string) int {
	t.Helper()
	u, err := url.Parse(statusCallback)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, ne.URL+u.RequestURI(), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(messaging.TwilioSignatureHeader, messaging.CallbackSignature(token, statusCallback, form))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}
