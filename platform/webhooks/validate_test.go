package webhooks

import (
	"errors"
	"slices"
	"testing"

	"github.com/kobana/kobana-mcp/platform/safehttp"
)

func TestCheckURL(t *testing.T) {
	t.Parallel()
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
	// Every other spelling of an address that must not be reached, refused
	// when the webhook is saved, and each allowed in development.
	for _, host := range refusedHosts {
		cases = append(cases,
			struct {
				url          string
				allowPrivate bool
				ok           bool
			}{"https://" + host + "/in", false, false},
			struct {
				url          string
				allowPrivate bool
				ok           bool
			}{"https://" + host + "/in", true, true})
	}
	for _, host := range acceptedHosts {
		cases = append(cases, struct {
			url          string
			allowPrivate bool
			ok           bool
		}{"https://" + host + "/in", false, true})
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

// refusedHosts spell, in every way some resolver or browser reads as an
// address, hosts a webhook must not target; and the names of internal and
// cloud metadata services.
var refusedHosts = []string{
	// 127.0.0.1: decimal, hexadecimal, octal, shortened, mixed.
	"2130706433", "0x7f000001", "0X7F000001", "0177.0.0.1", "0177.0000.0000.0001", "127.1", "127.0.1",
	"0x7f.1", "0x7f.0.0.1", "0x7f.0x0.0x0.0x1", "017700000001", "127.0.0.1.", "127.000.000.001",
	// 0.0.0.0 (this host, to most stacks) and friends.
	"0", "0x0", "00", "0.0", "0.0.0.0",
	// 10.0.0.1, 192.168.0.1, 172.16.0.1.
	"167772161", "0xa000001", "012.0.0.1", "10.1", "0xc0.0xa8.0.1", "3232235521", "0xac100001",
	// 169.254.169.254, the metadata address of most clouds.
	"169.254.169.254", "2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518", "0xa9.0xfe.0xa9.0xfe",
	// IPv6: loopback, unspecified, mapped and embedded IPv4, link-local
	// with and without zone, unique local (AWS's metadata address).
	"[::1]", "[0:0:0:0:0:0:0:1]", "[::]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]",
	"[::ffff:169.254.169.254]", "[::127.0.0.1]", "[::7f00:1]", "[::ffff:0:127.0.0.1]", "[::ffff:0:8.8.8.8]",
	"[fe80::1]", "[fe80::1%25eth0]", "[fd00:ec2::254]", "[64:ff9b::a9fe:a9fe]",
	// Full-width digits and ideographic full stops, which IDNA maps.
	"１２７.０.０.１", "127。0。0。1", "127．0．0．1", "１２７．１",
	// Shared, reserved and metadata addresses outside the private ranges.
	"100.100.100.200", "192.0.0.192", "168.63.129.16", "[::ffff:168.63.129.16]",
	// Metadata, internal and local names.
	"metadata.google.internal", "METADATA.GOOGLE.INTERNAL.", "metadata.goog", "metadata", "instance-data",
	"instance-data.ec2.internal", "ip-10-0-0-1.ec2.internal", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local",
	"printer.local", "router.home.arpa", "nas.lan", "ｍｅｔａｄａｔａ.google.internal", "localhost.", "a.localhost",
	// Not host names at all, though they end in a number.
	"1.2.3.4.5", "foo.0x10", "foo.123", "256.0.0.1", "0x1.0x2.0x3.0x4.0x5", "1.16777216", "0xg.0.0.1",
	"a..b.example.com",
	// Public addresses in forms resolvers disagree on.
	"16843009", "0x01010101", "1.1.257", "0x5db8d70e",
}

// acceptedHosts are ordinary public targets.
var acceptedHosts = []string{
	"93.184.215.14", "1.1.1.1", "1.1.1.1.", "[2606:4700:4700::1111]", "hooks.example.com", "HOOKS.Example.COM.",
	"ação.example.com.br", "xn--ao-dia2a.example.com.br", "hooks-1.example.com", "0x.example.com", "a1.b2",
	"internal.example.com", "metadata.example.com", "local.example.com", "123.example.com",
}

// The dialer refuses the metadata addresses the SSRF ranges do not cover,
// whatever name led to them.
func TestControlRefusesMetadataAddresses(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"168.63.129.16:443", "[::ffff:168.63.129.16]:443", "169.254.169.254:80", "127.0.0.1:443"} {
		if err := controlTarget("tcp", addr, nil); !errors.Is(err, safehttp.ErrForbiddenAddress) {
			t.Errorf("%s: %v, want refused", addr, err)
		}
	}
	if err := controlTarget("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("a public address: %v", err)
	}
}

func TestCleanEvents(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
