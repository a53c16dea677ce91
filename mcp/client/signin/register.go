package signin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Registration is a client registered with Dynamic Client Registration
// (RFC 7591).
type Registration struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// Register registers a native public client whose one redirect URI is
// redirectURI, allowed the authorization code and refresh token grants.
func Register(ctx context.Context, hc *http.Client, sm ServerMetadata, name, version, redirectURI string) (*Registration, error) {
	if sm.RegistrationEndpoint == "" {
		if sm.ClientIDMetadataDocumentSupported {
			return nil, fmt.Errorf("the authorization server %s only takes clients that publish a Client ID Metadata Document at an https URL, which this program cannot serve; it offers no dynamic client registration", sm.Issuer)
		}
		return nil, fmt.Errorf("the authorization server %s offers no dynamic client registration", sm.Issuer)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	body, _ := json.Marshal(map[string]any{
		"client_name": name, "software_version": version, "application_type": "native",
		"redirect_uris": []string{redirectURI}, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sm.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("registering the client: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return nil, fmt.Errorf("registering the client: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.Error != "" {
			return nil, fmt.Errorf("registering the client: HTTP %d: %s: %s", resp.StatusCode, e.Error, e.Description)
		}
		return nil, fmt.Errorf("registering the client: HTTP %d", resp.StatusCode)
	}
	var r Registration
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("registering the client: the answer is not JSON: %v", err)
	}
	if r.ClientID == "" {
		return nil, errors.New("registering the client: the answer has no client_id")
	}
	return &r, nil
}
