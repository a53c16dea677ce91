package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth/server"
)

func TestRegistration(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t, func(c *server.Config) { c.RegistrationPerIP = server.Limit{Every: time.Second, Burst: 100} })
	good := map[string]string{
		"https":               "https://app.example.com/oauth/callback",
		"localhost":           "http://localhost:3000/callback",
		"127.0.0.1 no port":   "http://127.0.0.1/callback",
		"IPv6 loopback":       "http://[::1]:8080/callback",
		"https with a query":  "https://app.example.com/cb?x=1",
		"https on a port":     "https://app.example.com:8443/cb",
		"localhost with path": "http://localhost/a/b",
	}
	for name, uri := range good {
		status, out := e.register(map[string]any{"redirect_uris": []string{uri}, "token_endpoint_auth_method": "none"})
		if status != http.StatusCreated || out["client_id"] == "" || out["client_secret"] != nil || out["token_endpoint_auth_method"] != "none" {
			t.Errorf("%s: %d %v", name, status, out)
		}
	}
	bad := map[string]string{
		"http elsewhere":    "http://app.example.com/callback",
		"custom scheme":     "myapp://callback",
		"fragment":          "https://app.example.com/cb#x",
		"relative":          "/callback",
		"credentials":       "https://user:pw@app.example.com/cb",
		"http private addr": "http://10.0.0.1/cb",
		"empty":             "",
		"javascript":        "javascript:alert(1)",
	}
	for name, uri := range bad {
		status, out := e.register(map[string]any{"redirect_uris": []string{uri}, "token_endpoint_auth_method": "none"})
		if status != http.StatusBadRequest || out["error"] != "invalid_redirect_uri" {
			t.Errorf("%s (%q): %d %v", name, uri, status, out)
		}
	}
	if status, out := e.register(map[string]any{"token_endpoint_auth_method": "none"}); status != 400 || out["error"] != "invalid_redirect_uri" {
		t.Errorf("no redirect_uris: %d %v", status, out)
	}
	for name, meta := range map[string]map[string]any{
		"client_credentials":  {"grant_types": []string{"client_credentials"}},
		"implicit":            {"response_types": []string{"token"}},
		"private_key_jwt":     {"token_endpoint_auth_method": "private_key_jwt"},
		"refresh alone":       {"grant_types": []string{"refresh_token"}},
		"redirect_uris typed": {"redirect_uris": "https://app.example.com/cb"},
	} {
		m := map[string]any{"redirect_uris": []string{callback}}
		for k, v := range meta {
			m[k] = v
		}
		if status, out := e.register(m); status != 400 || out["error"] != "invalid_client_metadata" {
			t.Errorf("%s: %d %v", name, status, out)
		}
	}
	resp, err := http.Post(e.issuer+server.PathRegister, "text/plain", strings.NewReader(`{"redirect_uris":["`+callback+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("text/plain body: %d", resp.StatusCode)
	}
}

// TestConfidentialClient registers a client with a secret and authenticates
// with it at the token endpoint, by header and by body.
func TestConfidentialClient(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	for _, method := range []string{"", "client_secret_basic", "client_secret_post"} {
		meta := map[string]any{"client_name": "Server App", "redirect_uris": []string{callback}, "grant_types": []string{"authorization_code", "refresh_token"}}
		if method != "" {
			meta["token_endpoint_auth_method"] = method
		}
		status, out := e.register(meta)
		secret, _ := out["client_secret"].(string)
		if status != 201 || secret == "" || out["client_secret_expires_at"] != float64(0) {
			t.Fatalf("%q: %d %v", method, status, out)
		}
		if method == "" && out["token_endpoint_auth_method"] != "client_secret_basic" {
			t.Fatalf("default method: %v", out["token_endpoint_auth_method"])
		}
		clientID := out["client_id"].(string)
		p := newPKCE()
		code := e.code(e.authorize(e.browser(), authParams(clientID, p)))
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback}, "code_verifier": {p.verifier}}
		try := func(sec string) (int, string) {
			f := url.Values{}
			for k, v := range form {
				f[k] = v
			}
			if method == "client_secret_post" {
				f.Set("client_id", clientID)
				f.Set("client_secret", sec)
				status, body := e.postForm(server.PathToken, f, "", "")
				return status, string(body)
			}
			status, body := e.postForm(server.PathToken, f, clientID, sec)
			return status, string(body)
		}
		if status, body := try(secret + "x"); status != 401 || !strings.Contains(body, "invalid_client") {
			t.Fatalf("%q wrong secret: %d %s", method, status, body)
		}
		if status, body := try(secret); status != 200 || !strings.Contains(body, "access_token") {
			t.Fatalf("%q right secret: %d %s", method, status, body)
		}
	}
	// A confidential client may not skip authentication.
	_, out := e.register(map[string]any{"redirect_uris": []string{callback}})
	clientID := out["client_id"].(string)
	p := newPKCE()
	code := e.code(e.authorize(e.browser(), authParams(clientID, p)))
	if tr := e.exchange(clientID, code, p); tr.Status != 401 || tr.Error != "invalid_client" {
		t.Fatalf("confidential client without its secret: %+v", tr)
	}
}

func TestRegistrationDefaults(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	// RFC 7591's default grant is authorization_code alone: no refresh
	// token.
	_, out := e.register(map[string]any{"redirect_uris": []string{"http://127.0.0.1/callback"}, "token_endpoint_auth_method": "none"})
	clientID := out["client_id"].(string)
	p := newPKCE()
	// RFC 8252: a loopback IP redirect URI matches on any port.
	code := e.code(e.authorize(e.browser(), authParams(clientID, p)))
	tr := e.exchange(clientID, code, p)
	if tr.Status != 200 || tr.RefreshToken != "" {
		t.Fatalf("code-only client: %+v", tr)
	}
}

func TestRegistrationRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t, func(c *server.Config) { c.RegistrationPerIP = server.Limit{Every: time.Hour, Burst: 2} })
	meta := map[string]any{"redirect_uris": []string{callback}, "token_endpoint_auth_method": "none"}
	for i := range 2 {
		if status, _ := e.register(meta); status != 201 {
			t.Fatalf("registration %d: %d", i, status)
		}
	}
	if status, _ := e.register(meta); status != http.StatusTooManyRequests {
		t.Fatalf("third registration: %d", status)
	}
}
