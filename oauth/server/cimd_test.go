package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/oauth/server"
)

// docServer serves client metadata documents on loopback, counting hits.
type docServer struct {
	*httptest.Server
	hits atomic.Int64
	docs map[string]func(self string) (status int, header http.Header, body string)
}

func newDocServer(t *testing.T, tls bool) *docServer {
	d := &docServer{docs: map[string]func(string) (int, http.Header, string){}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.hits.Add(1)
		f, ok := d.docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		status, header, body := f(d.URL + r.URL.Path)
		for k, v := range header {
			w.Header()[k] = v
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
	if tls {
		d.Server = httptest.NewTLSServer(h)
	} else {
		d.Server = httptest.NewServer(h)
	}
	t.Cleanup(d.Close)
	return d
}

// doc is a valid document for self, changed by edit.
func doc(self string, edit func(m map[string]any)) string {
	m := map[string]any{
		"client_id": self, "client_name": "Doc Agent", "redirect_uris": []string{callback},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none",
	}
	if edit != nil {
		edit(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func serve(edit func(map[string]any), header ...string) func(string) (int, http.Header, string) {
	return func(self string) (int, http.Header, string) {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return 200, h, doc(self, edit)
	}
}

func insecureCIMD(c *server.Config) { c.AllowInsecureCIMD = true }

func TestClientMetadataDocument(t *testing.T) {
	t.Parallel()
	runEnvs(t, func(t *testing.T, e *env) {
		docs := newDocServer(t, false)
		docs.docs["/oauth/client.json"] = serve(nil, "Cache-Control", "public, max-age=3600")
		clientID := docs.URL + "/oauth/client.json"

		p := newPKCE()
		b := e.browser()
		consentPage := b.signIn(e.issuer, b.get(e.issuer+server.PathAuthorize+"?"+authParams(clientID, p).Encode()), anaEmail, anaPassword)
		// Plain HTTP (development only) vouches for nothing: unverified.
		if !strings.Contains(consentPage.body, "Doc Agent") || !strings.Contains(consentPage.body, "unverified") {
			t.Fatalf("consent page for a metadata-document client:\n%s", consentPage.body)
		}
		code := e.code(b.consent(e.issuer, consentPage, "allow"))
		tr := e.exchange(clientID, code, p)
		if tr.Status != 200 || tr.RefreshToken == "" {
			t.Fatalf("exchange: %+v", tr)
		}
		id, err := e.verifier(e.mcp).Verify(context.Background(), tr.AccessToken)
		if err != nil || id.ClientID != clientID {
			t.Fatalf("token of a metadata-document client: %+v %v", id, err)
		}
		if got := e.refresh(clientID, tr.RefreshToken); got.Status != 200 {
			t.Fatalf("refresh: %+v", got)
		}
		// Authorize, token and refresh all read the client: one fetch, then
		// the cache.
		if n := docs.hits.Load(); n != 1 {
			t.Fatalf("document fetched %d times, want 1 (cached for its max-age)", n)
		}
	}, insecureCIMD)
}

func TestClientMetadataDocumentRefused(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t, insecureCIMD)
	docs := newDocServer(t, false)
	cases := map[string]func(string) (int, http.Header, string){
		"/wrong-id":       serve(func(m map[string]any) { m["client_id"] = "https://elsewhere.example/client.json" }),
		"/http-redirect":  serve(func(m map[string]any) { m["redirect_uris"] = []string{"http://app.example.com/cb"} }),
		"/custom-scheme":  serve(func(m map[string]any) { m["redirect_uris"] = []string{"myapp://cb"} }),
		"/no-redirects":   serve(func(m map[string]any) { delete(m, "redirect_uris") }),
		"/secret-method":  serve(func(m map[string]any) { m["token_endpoint_auth_method"] = "client_secret_basic" }),
		"/carries-secret": serve(func(m map[string]any) { m["client_secret"] = "s3cret" }),
		"/bad-grant":      serve(func(m map[string]any) { m["grant_types"] = []string{"client_credentials"} }),
		"/not-json": func(string) (int, http.Header, string) {
			return 200, http.Header{"Content-Type": {"text/html"}}, "<html>"
		},
		"/broken-json":     func(string) (int, http.Header, string) { return 200, nil, "{" },
		"/missing":         func(string) (int, http.Header, string) { return 404, nil, "{}" },
		"/too-large":       serve(func(m map[string]any) { m["padding"] = strings.Repeat("x", 65<<10) }),
		"/redirects":       func(self string) (int, http.Header, string) { return 302, http.Header{"Location": {"/good"}}, "" },
		"/good/../dot":     serve(nil),
		"/client?x#frag":   serve(nil),
		"/ (no path)":      serve(nil),
		"/good/not-listed": serve(nil),
	}
	docs.docs["/good"] = serve(nil)
	for path, f := range cases {
		docs.docs[path] = f
	}
	b := e.browser()
	for path := range cases {
		clientID := docs.URL + path
		switch path {
		case "/ (no path)":
			clientID = docs.URL
		case "/good/not-listed":
			// A valid document, but the request's redirect URI is not in it.
			clientID = docs.URL + "/good"
		}
		q := authParams(clientID, newPKCE())
		if path == "/good/not-listed" {
			q.Set("redirect_uri", "http://127.0.0.1:9/other")
		}
		got := b.get(e.issuer + server.PathAuthorize + "?" + q.Encode())
		if got.status < 400 || got.header.Get("Location") != "" {
			t.Errorf("%s: %d %s", path, got.status, got.header.Get("Location"))
		}
	}
}

// TestClientMetadataDocumentSSRF: with the development option off, a
// metadata document URL that resolves to loopback is never fetched, and a
// plain-HTTP client id is not a metadata document at all.
func TestClientMetadataDocumentSSRF(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t)
	tlsDocs := newDocServer(t, true)
	tlsDocs.docs["/client.json"] = serve(nil)
	plainDocs := newDocServer(t, false)
	plainDocs.docs["/client.json"] = serve(nil)
	b := e.browser()
	for _, clientID := range []string{tlsDocs.URL + "/client.json", plainDocs.URL + "/client.json", "https://localhost:1/client.json"} {
		got := b.get(e.issuer + server.PathAuthorize + "?" + authParams(clientID, newPKCE()).Encode())
		if got.status < 400 || got.header.Get("Location") != "" || !strings.Contains(got.body, "não pode se conectar") {
			t.Errorf("%s: %d %s", clientID, got.status, got.body)
		}
	}
	if n := tlsDocs.hits.Load() + plainDocs.hits.Load(); n != 0 {
		t.Fatalf("a loopback metadata server was reached %d times", n)
	}
}

func TestClientMetadataFetchLimit(t *testing.T) {
	t.Parallel()
	e := newEnvSQLite(t, insecureCIMD, func(c *server.Config) { c.MetadataFetchPerIP = server.Limit{Every: time.Hour, Burst: 2} })
	docs := newDocServer(t, false)
	for _, p := range []string{"/a", "/b", "/c"} {
		docs.docs[p] = serve(nil)
	}
	b := e.browser()
	for i, p := range []string{"/a", "/b", "/c", "/a"} {
		got := b.get(e.issuer + server.PathAuthorize + "?" + authParams(docs.URL+p, newPKCE()).Encode())
		// /a and /b are fetched; /c is over the limit; /a again is cached.
		wantOK := i != 2
		if ok := got.status == http.StatusSeeOther; ok != wantOK {
			t.Fatalf("request %d (%s): %d", i, p, got.status)
		}
	}
	if n := docs.hits.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
}
