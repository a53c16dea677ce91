package signin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// Credentials are what a client keeps of a sign-in between runs: the
// token, and what refreshing and revoking it needs. Keep them where only
// the person can read them.
type Credentials struct {
	// Endpoint is the MCP endpoint they were made for.
	Endpoint string `json:"endpoint"`
	// Resource is the resource the token is for (RFC 8707).
	Resource string `json:"resource"`
	// Issuer is the authorization server.
	Issuer        string   `json:"issuer"`
	ClientID      string   `json:"client_id"`
	ClientSecret  string   `json:"client_secret,omitempty"`
	AuthURL       string   `json:"authorization_endpoint"`
	TokenURL      string   `json:"token_endpoint"`
	RevocationURL string   `json:"revocation_endpoint,omitempty"`
	Scopes        []string `json:"scopes,omitempty"`
	// Token is the access token, its expiry and the refresh token.
	Token *oauth2.Token `json:"token"`
}

// ErrSignInAgain is returned when the token expired and cannot be
// refreshed (no refresh token, or the server refused it): the person must
// sign in again.
var ErrSignInAgain = errors.New("the sign-in expired")

// Config is the oauth2 configuration of the registered client.
func (c *Credentials) Config() *oauth2.Config {
	style := oauth2.AuthStyleInHeader
	if c.ClientSecret == "" {
		// A public client names itself in the form (RFC 6749 §2.3).
		style = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{
		ClientID: c.ClientID, ClientSecret: c.ClientSecret, Scopes: c.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: c.AuthURL, TokenURL: c.TokenURL, AuthStyle: style},
	}
}

// Refresh makes sure the access token is valid, refreshing it when it
// expired (or is about to); changed reports that Token changed and must be
// kept again — the refresh token too, which servers rotate on every use.
func (c *Credentials) Refresh(ctx context.Context, hc *http.Client) (changed bool, err error) {
	if c.Token == nil {
		return false, ErrSignInAgain
	}
	if c.Token.Valid() {
		return false, nil
	}
	if c.Token.RefreshToken == "" {
		return false, fmt.Errorf("%w: the access token expired and there is no refresh token", ErrSignInAgain)
	}
	if hc != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	}
	tok, err := c.Config().TokenSource(ctx, c.Token).Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && (re.ErrorCode == "invalid_grant" || re.ErrorCode == "invalid_client") {
		return false, fmt.Errorf("%w: the server refused the refresh token (%s)", ErrSignInAgain, re.ErrorCode)
	}
	if err != nil {
		return false, fmt.Errorf("refreshing the token: %w", err)
	}
	c.Token = tok
	return true, nil
}

// Revoke asks the server to revoke the refresh token (RFC 7009), which
// ends the whole grant; nothing to do when the server has no revocation
// endpoint or there is no refresh token.
func (c *Credentials) Revoke(ctx context.Context, hc *http.Client) error {
	if c.RevocationURL == "" || c.Token == nil || c.Token.RefreshToken == "" {
		return nil
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	form := url.Values{"token": {c.Token.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {c.ClientID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.RevocationURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if c.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.ClientSecret))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("revoking: HTTP %d", resp.StatusCode)
	}
	return nil
}
