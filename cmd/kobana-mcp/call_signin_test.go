package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kobana/kobana-mcp/mcp/client/signin"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// signInLinkRE is the link call prints for the person to open.
var signInLinkRE = regexp.MustCompile(`(?m)^  (http://127\.0\.0\.1:\d+/authorize\?\S+)$`)

// needChromium skips a test that plays a person in a browser when there
// is no Chromium, and fails it under CI, which installs one.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("needs Chromium at %s: %v", chromiumPath, err)
		}
		t.Skipf("needs Chromium at %s: %v", chromiumPath, err)
	}
}

// TestCallSignIn: `kobana-mcp call` with no token source, on a terminal,
// signs in with OAuth as any MCP client does — the endpoint's 401, its
// metadata, dynamic registration, the authorization code with PKCE and a
// loopback redirect — while headless Chromium plays the person on the
// sign-in and consent pages; redirects with another state, another issuer
// or to another path are refused and the wait goes on. The kept token then
// confirms a destructive tool (--yes) without a browser, is refreshed when
// it expired (the rotated refresh token kept), and --sign-out forgets it
// and revokes its grant.
func TestCallSignIn(t *testing.T) {
	t.Parallel()
	needChromium(t)
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s := startCallServe(t, engine)
			endpoint := s.endpoint(t, "inbox")
			creds := t.TempDir()
			store := credentialStore{dir: creds}
			base := []string{"--data-dir", s.dataDir, "--credentials", creds, "--no-browser", "--sign-in-timeout", "2m", "--product", "inbox"}
			tty := terminal{in: strings.NewReader(""), interactive: true}

			// 1. Signed in on the terminal's first call, which then runs.
			var errOut syncBuffer
			var out strings.Builder
			done := make(chan int, 1)
			go func() {
				done <- callWith(context.Background(), append(base, "tool", "workspaces_create", "label=Signed in", "external_id=signed-in"), &out, &errOut, tty)
			}()
			link := waitFor(t, &errOut, signInLinkRE, done)
			au, err := url.Parse(link)
			if err != nil {
				t.Fatal(err)
			}
			q := au.Query()
			if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != endpoint || q.Get("state") == "" {
				t.Fatalf("the authorization request: %s", link)
			}
			redirect := q.Get("redirect_uri")
			if !strings.HasPrefix(redirect, "http://127.0.0.1:") || !strings.HasSuffix(redirect, signin.CallbackPath) {
				t.Fatalf("redirect_uri %q", redirect)
			}
			issuer := strings.TrimSuffix(endpoint, "/mcp")
			for _, c := range []struct {
				name, url string
				want      int
			}{
				{"another state", redirect + "?code=forged&state=other&iss=" + url.QueryEscape(issuer), http.StatusBadRequest},
				{"another issuer", redirect + "?code=forged&state=" + url.QueryEscape(q.Get("state")) + "&iss=" + url.QueryEscape("http://127.0.0.1:1"), http.StatusBadRequest},
				{"no issuer (the server says it sends one)", redirect + "?code=forged&state=" + url.QueryEscape(q.Get("state")), http.StatusBadRequest},
				{"another path", strings.TrimSuffix(redirect, signin.CallbackPath) + "/elsewhere?code=forged&state=" + url.QueryEscape(q.Get("state")), http.StatusNotFound},
			} {
				resp, err := http.Get(c.url)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				resp.Body.Close()
				if resp.StatusCode != c.want {
					t.Fatalf("%s: HTTP %d, want %d", c.name, resp.StatusCode, c.want)
				}
			}
			signInInChromium(t, link, s.password(t))
			var code int
			select {
			case code = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("call did not finish after the browser came back:\n%s", errOut.String())
			}
			if code != 0 || !strings.Contains(errOut.String(), "Signed in to "+endpoint) || !strings.Contains(out.String(), `"external_id": "signed-in"`) {
				t.Fatalf("the first call: %d\n%s\n%s", code, out.String(), errOut.String())
			}
			st, err := os.Stat(store.path(endpoint))
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("the kept token: %v %v", st, err)
			}
			kept := readCredentials(t, store, endpoint)
			if kept.Token.RefreshToken == "" || kept.Resource != endpoint || kept.ClientID == "" {
				t.Fatalf("kept: %+v", kept)
			}

			// 2. The kept token, no browser: a destructive tool confirmed
			// with --yes, asked once and run once.
			r := s.callAs(t, tty, append(base, "--sign-in-timeout", "1s", "--yes", "tool", "workspaces_delete", "id=signed-in")...)
			if r.code != 0 || strings.Contains(r.errOut, "/authorize") || !strings.Contains(r.errOut, "Accepted (--yes).") || r.wire.count("tools/call+answer") != 1 {
				t.Fatalf("the second call: %d %v\n%s%s", r.code, r.wire.methods, r.out, r.errOut)
			}
			if r := s.callAs(t, terminal{}, append(base, "tool", "workspaces_get", "id=signed-in")...); r.code != 1 || !strings.Contains(r.out, "not_found") {
				t.Fatalf("the workspace after: %d %s%s", r.code, r.out, r.errOut)
			}

			// 3. Expired: refreshed on the next call, the rotated refresh
			// token kept; no terminal needed.
			kept.Token.Expiry = time.Now().Add(-time.Minute)
			if err := store.write(kept); err != nil {
				t.Fatal(err)
			}
			if r := s.callAs(t, terminal{}, append(base, "tools")...); r.code != 0 || !strings.Contains(r.out, "workspaces_delete") {
				t.Fatalf("after expiry: %d %s%s", r.code, r.out, r.errOut)
			}
			refreshed := readCredentials(t, store, endpoint)
			if refreshed.Token.AccessToken == kept.Token.AccessToken || refreshed.Token.RefreshToken == kept.Token.RefreshToken || !refreshed.Token.Valid() {
				t.Fatalf("not refreshed: %+v", refreshed.Token)
			}

			// 4. Signed out: forgotten here, its grant revoked there.
			if r := s.callAs(t, terminal{}, append(base, "--sign-out")...); r.code != 0 || !strings.Contains(r.out, "Signed out of "+endpoint) {
				t.Fatalf("--sign-out: %d %s%s", r.code, r.out, r.errOut)
			}
			if _, err := os.Stat(store.path(endpoint)); !os.IsNotExist(err) {
				t.Fatalf("the token file after --sign-out: %v", err)
			}
			r = s.callAs(t, terminal{}, append(base, "tools")...)
			if r.code != 1 || !strings.Contains(r.errOut, "HTTP 401") || !strings.Contains(r.errOut, "add --sign-in") {
				t.Fatalf("signed out: %d %s%s", r.code, r.out, r.errOut)
			}
			r = s.callAs(t, terminal{}, "--data-dir", s.dataDir, "--product", "inbox", "--token", refreshed.Token.AccessToken, "tools")
			if r.code != 1 || !strings.Contains(r.errOut, "HTTP 401") {
				t.Fatalf("the revoked grant's access token: %d %s%s", r.code, r.out, r.errOut)
			}
		})
	}
}

// callAs runs `kobana-mcp call` with args as given: no --user added.
func (s *callServe) callAs(t *testing.T, term terminal, args ...string) callResult {
	t.Helper()
	wire := &wireLog{}
	term.http = &http.Client{Transport: wire}
	if term.in == nil {
		term.in = strings.NewReader("")
	}
	var out, errOut strings.Builder
	code := callWith(context.Background(), args, &out, &errOut, term)
	return callResult{code, out.String(), errOut.String(), wire}
}

// waitFor waits until out holds re's first group, failing if the command
// ends first.
func waitFor(t *testing.T, out *syncBuffer, re *regexp.Regexp, done <-chan int) string {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("call exited %d before printing %s:\n%s", code, re, out.String())
		case <-deadline:
			t.Fatalf("call printed no %s in a minute:\n%s", re, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// signInInChromium is the person: opens the link, signs in as the demo
// owner, allows on the consent page, and waits for the loopback page to
// say the terminal has it.
func signInInChromium(t *testing.T, link, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	bctx, closeBrowser, err := headlessChromium(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer closeBrowser()
	err = chromedp.Do(bctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.ID("sign-in")),
		chromedp.SendKeys(chromedp.ID("email"), accounts.DemoOwnerEmail),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("sign-in")),
		chromedp.WaitVisible(chromedp.ID("allow")),
		chromedp.Click(chromedp.ID("allow")),
		chromedp.WaitVisible(chromedp.CSS(`#title[data-status="200"]`)),
	)
	if err != nil {
		loc, _ := chromedp.Run(bctx, chromedp.Location())
		t.Fatalf("chromium: %v (at %s)", err, loc)
	}
}

// readCredentials is what the store keeps for endpoint.
func readCredentials(t *testing.T, s credentialStore, endpoint string) *signin.Credentials {
	t.Helper()
	b, err := os.ReadFile(s.path(endpoint))
	if err != nil {
		t.Fatal(err)
	}
	var c signin.Credentials
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s.path(endpoint)) != s.dir {
		t.Fatalf("the file %s is outside %s", s.path(endpoint), s.dir)
	}
	return &c
}
