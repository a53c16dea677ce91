package webhooks

import (
	"errors"
	"slices"
	"testing"
)

func TestCheckURL(t *testing.T) {
	cases := []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://hooks.example.com/in?x=1", false, true},
		{"  https://hooks.example.com/in  ", false, true},
		{"https://93.184.215.14:8443/in", false, true},
		{"http://hooks.example.com/in", false, false}, // https only
		{"http://hooks.example.com/in", true, true},
		{"https://127.0.0.1/in", false, false},
		{"https://127.0.0.1/in", true, true},
		{"https://[::1]/in", false, false},
		{"https://10.1.2.3/in", false, false},
		{"https://169.254.169.254/latest", false, false},
		{"https://[::ffff:192.168.0.1]/", false, false},
		{"https://localhost:8080/in", false, false},
		{"https://api.localhost/in", false, false},
		{"http://localhost:8080/in", true, true},
		{"ftp://hooks.example.com/in", true, false},
		{"/relative/path", true, false},
		{"hooks.example.com/in", true, false},
		{"https://user:pw@hooks.example.com/", true, false},
		{"https:///nohost", true, false},
		{"https://hooks.example.com/#frag", true, false},
		{"mailto:someone@example.com", true, false},
		{"", true, false},
	}
	for _, c := range cases {
		_, err := checkURL(c.url, c.allowPrivate)
		if (err == nil) != c.ok {
			t.Errorf("checkURL(%q, allowPrivate=%v) = %v, want ok=%v", c.url, c.allowPrivate, err, c.ok)
		}
		var ve *ValidationError
		if err != nil && (!errors.As(err, &ve) || ve.Field != "url") {
			t.Errorf("checkURL(%q): %v is not a ValidationError on url", c.url, err)
		}
	}
}

func TestCleanEvents(t *testing.T) {
	got, err := cleanEvents([]string{"email.processed", " * ", "email.*", "email.processed"})
	if err != nil || !slices.Equal(got, []string{"email.processed", "*", "email.*"}) {
		t.Fatalf("cleanEvents = %v, %v", got, err)
	}
	for _, bad := range [][]string{nil, {}, {"Email.Processed"}, {"email."}, {"email.*.x"}, {"*.processed"}, {".*"}, {"e mail"}} {
		if _, err := cleanEvents(bad); err == nil {
			t.Errorf("cleanEvents(%q) accepted", bad)
		}
	}
}

func TestMatches(t *testing.T) {
	cases := []struct {
		subscribed []string
		slug       string
		want       bool
	}{
		{[]string{"email.processed"}, "email.processed", true},
		{[]string{"email.processed"}, "email.received", false},
		{[]string{"*"}, "agent_run.failed", true},
		{[]string{"email.*"}, "email.processed", true},
		{[]string{"email.*"}, "email.db.created", true},
		{[]string{"email.*"}, "email", false},
		{[]string{"email.*"}, "emails.processed", false},
		{[]string{"agent_run.failed", "email.*"}, "email.received", true},
	}
	for _, c := range cases {
		if got := matches(c.subscribed, c.slug); got != c.want {
			t.Errorf("matches(%v, %q) = %v, want %v", c.subscribed, c.slug, got, c.want)
		}
	}
}

func TestCheckCredentials(t *testing.T) {
	ok := []struct {
		auth string
		c    Credentials
	}{
		{AuthNone, Credentials{Token: "ignored"}},
		{AuthBasic, Credentials{Username: "u", Password: ""}},
		{AuthBearer, Credentials{Token: "abc.def"}},
		{AuthHeader, Credentials{HeaderName: "x-api-key", HeaderValue: "v"}},
	}
	for _, c := range ok {
		if _, err := checkCredentials(c.auth, c.c); err != nil {
			t.Errorf("%s %+v: %v", c.auth, c.c, err)
		}
	}
	if c, _ := checkCredentials(AuthNone, Credentials{Token: "x"}); c != (Credentials{}) {
		t.Errorf("auth none kept credentials %+v", c)
	}
	if c, _ := checkCredentials(AuthHeader, Credentials{HeaderName: "x-api-key", HeaderValue: "v", Token: "t"}); c.HeaderName != "X-Api-Key" || c.Token != "" {
		t.Errorf("header credentials = %+v", c)
	}
	bad := []struct {
		auth string
		c    Credentials
	}{
		{"digest", Credentials{}},
		{AuthBasic, Credentials{}},
		{AuthBasic, Credentials{Username: "a:b"}},
		{AuthBasic, Credentials{Username: "u", Password: "p\r\nX-Injected: 1"}},
		{AuthBearer, Credentials{}},
		{AuthBearer, Credentials{Token: "a b"}},
		{AuthHeader, Credentials{HeaderName: "", HeaderValue: "v"}},
		{AuthHeader, Credentials{HeaderName: "Bad Name", HeaderValue: "v"}},
		{AuthHeader, Credentials{HeaderName: "X-Kobana-Signature", HeaderValue: "v"}},
		{AuthHeader, Credentials{HeaderName: "content-type", HeaderValue: "v"}},
		{AuthHeader, Credentials{HeaderName: "X-Key", HeaderValue: ""}},
	}
	for _, c := range bad {
		if _, err := checkCredentials(c.auth, c.c); err == nil {
			t.Errorf("%s %+v accepted", c.auth, c.c)
		}
	}
}
