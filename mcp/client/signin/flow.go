package signin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/oauth2"
)

// Flow is one sign-in: the person opens a link, signs in and allows, and
// the authorization server sends the browser back to a loopback address
// where this process waits.
type Flow struct {
	// HTTP sends discovery, registration and token requests; nil is
	// http.DefaultClient.
	HTTP *http.Client
	// ClientName and ClientVersion describe the client at registration
	// (the consent page shows the name).
	ClientName, ClientVersion string
	// Show is given the link the person must open (print it, try a
	// browser). It must not block.
	Show func(authURL string)
	// Timeout bounds the wait for the browser (default 5 minutes).
	Timeout time.Duration
}

// ErrTimeout is returned when the browser did not come back in time.
var ErrTimeout = errors.New("no answer from the browser in time: nothing was signed in")

// CallbackPath is the path of the loopback redirect URI.
const CallbackPath = "/callback"

// SignIn runs the authorization code grant with PKCE (S256) against the
// server d found, with a loopback redirect on 127.0.0.1 at a free port,
// and returns the credentials to keep.
func (f *Flow) SignIn(ctx context.Context, d *Discovery) (*Credentials, error) {
	hc := f.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("opening the loopback address for the browser's redirect: %w", err)
	}
	defer ln.Close()
	redirect := "http://127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + CallbackPath
	reg, err := Register(ctx, hc, d.Server, f.ClientName, f.ClientVersion, redirect)
	if err != nil {
		return nil, err
	}
	creds := &Credentials{
		Endpoint: d.Endpoint, Resource: d.Resource, Issuer: d.Server.Issuer,
		ClientID: reg.ClientID, ClientSecret: reg.ClientSecret,
		AuthURL: d.Server.AuthorizationEndpoint, TokenURL: d.Server.TokenEndpoint, RevocationURL: d.Server.RevocationEndpoint,
		Scopes: d.Scopes,
	}
	conf := creds.Config()
	conf.RedirectURL = redirect
	verifier := oauth2.GenerateVerifier()
	// The state is as unguessable as a PKCE verifier: 32 random bytes.
	state := oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.Resource))

	cb := newCallback(state, d.Server.Issuer, d.Server.AuthorizationResponseISSSupported)
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go serveCallback(srv, ln, served)
	defer func() {
		_ = srv.Close()
		<-served
	}()
	if f.Show != nil {
		f.Show(authURL)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var got callbackResult
	select {
	case got = <-cb.result:
	case <-timer.C:
		return nil, ErrTimeout
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if got.err != nil {
		return nil, got.err
	}
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, hc), got.code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.Resource))
	if err != nil {
		return nil, fmt.Errorf("exchanging the code for a token: %w", err)
	}
	creds.Token = tok
	return creds, nil
}

// serveCallback serves the loopback redirect until the server is closed.
func serveCallback(srv *http.Server, ln net.Listener, done chan<- struct{}) {
	defer close(done)
	_ = srv.Serve(ln)
}
