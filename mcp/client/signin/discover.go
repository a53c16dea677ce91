package signin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// ResourceMetadata is the part of a protected resource's metadata (RFC
// 9728 §2) a client reads.
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// ServerMetadata is the part of an authorization server's metadata (RFC
// 8414 §2) a client reads.
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseISSSupported bool     `json:"authorization_response_iss_parameter_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
}

// Discovery is what a client learned of an MCP endpoint's authorization:
// the resource to ask a token for, the scopes to ask, and the server.
type Discovery struct {
	// Endpoint is the MCP endpoint the discovery started from.
	Endpoint string
	// Resource is the resource's identifier (its metadata's resource),
	// sent as the RFC 8707 resource indicator.
	Resource string
	// Scopes are the scopes the challenge asked for, else those the
	// resource's metadata lists.
	Scopes []string
	// Server is the authorization server's metadata.
	Server ServerMetadata
}

// maxDocument caps a metadata document.
const maxDocument = 1 << 20

// Discover follows an endpoint's 401 to its authorization server:
// challenge is the WWW-Authenticate header the endpoint answered (its
// resource_metadata names the resource's metadata; without one the
// well-known URLs of RFC 9728 §3.1 are tried). The resource metadata must
// name endpoint itself, and the server's metadata its issuer, and the
// server must offer PKCE with S256, as the MCP authorization
// specification requires.
func Discover(ctx context.Context, hc *http.Client, endpoint, challenge string) (*Discovery, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	c, _ := ParseChallenge(challenge)
	candidates := []string{c.ResourceMetadata}
	if c.ResourceMetadata == "" {
		candidates = wellKnown(endpoint, "oauth-protected-resource", false)
	}
	var rm ResourceMetadata
	var err error
	for _, u := range candidates {
		if err = getJSON(ctx, hc, u, &rm); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the protected resource metadata: %w", err)
	}
	if !sameResource(rm.Resource, endpoint) {
		return nil, fmt.Errorf("the protected resource metadata is for %q, not for %s: refusing it (RFC 9728 §3.3)", rm.Resource, endpoint)
	}
	if len(rm.AuthorizationServers) == 0 {
		return nil, errors.New("the protected resource metadata names no authorization server")
	}
	issuer := rm.AuthorizationServers[0]
	var sm ServerMetadata
	for _, u := range wellKnown(issuer, "oauth-authorization-server", true) {
		if err = getJSON(ctx, hc, u, &sm); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the authorization server's metadata (%s): %w", issuer, err)
	}
	if sm.Issuer != issuer {
		return nil, fmt.Errorf("the authorization server's metadata names issuer %q, not %q: refusing it (RFC 8414 §3.3)", sm.Issuer, issuer)
	}
	if !slices.Contains(sm.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("the authorization server %s does not offer PKCE with S256, which the MCP authorization specification requires", issuer)
	}
	if sm.AuthorizationEndpoint == "" || sm.TokenEndpoint == "" {
		return nil, fmt.Errorf("the authorization server %s lists no authorization or token endpoint", issuer)
	}
	d := &Discovery{Endpoint: endpoint, Resource: rm.Resource, Server: sm, Scopes: strings.Fields(c.Scope)}
	if len(d.Scopes) == 0 {
		d.Scopes = rm.ScopesSupported
	}
	return d, nil
}

// sameResource compares a resource identifier with the endpoint's URL,
// ignoring a trailing slash and the case of scheme and host.
func sameResource(resource, endpoint string) bool {
	a, err1 := url.Parse(resource)
	b, err2 := url.Parse(endpoint)
	if err1 != nil || err2 != nil {
		return false
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host) &&
		strings.TrimSuffix(a.EscapedPath(), "/") == strings.TrimSuffix(b.EscapedPath(), "/") && a.RawQuery == b.RawQuery
}

// wellKnown lists the metadata URLs of base in the order they are tried:
// the path-inserted one (RFC 8414 §3.1, RFC 9728 §3.1), then, for an
// authorization server, the OpenID Connect ones, then the root one.
func wellKnown(base, name string, openID bool) []string {
	u, err := url.Parse(base)
	if err != nil {
		return []string{base}
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	origin := u.Scheme + "://" + u.Host
	out := []string{origin + "/.well-known/" + name + path}
	if openID {
		out = append(out, origin+"/.well-known/openid-configuration"+path)
		if path != "" {
			out = append(out, origin+path+"/.well-known/openid-configuration")
		}
	}
	if path != "" {
		out = append(out, origin+"/.well-known/"+name)
	}
	return out
}

// getJSON reads one JSON document.
func getJSON(ctx context.Context, hc *http.Client, u string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("GET %s: not a JSON document: %v", u, err)
	}
	return nil
}
