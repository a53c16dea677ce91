package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ory/fosite"
	"golang.org/x/sync/singleflight"

	"github.com/kobana/kobana-mcp/platform/safehttp"
	"github.com/kobana/kobana-mcp/platform/safename"
)

// Redirect URIs (both registration paths): HTTPS anywhere, or plain HTTP
// on the person's own machine only (RFC 8252 loopback redirects). No
// custom schemes, no fragments, no credentials in the URI.
func checkRedirectURI(raw string) error {
	if raw == "" || len(raw) > 2000 {
		return errors.New("a redirect URI must be 1 to 2000 characters")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("redirect URI %q is not an absolute URL", raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("redirect URI %q has a fragment", raw)
	}
	if u.User != nil {
		return fmt.Errorf("redirect URI %q carries credentials", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("redirect URI %q uses http on a host other than localhost, 127.0.0.1 or [::1]; use https", raw)
	}
	return fmt.Errorf("redirect URI %q must use https, or http on localhost", raw)
}

func isLoopbackHost(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// cleanName keeps a client name displayable: without the control and
// bidi characters platform/safename.Display removes (the same rule as
// Kadu's file names), at most 100 characters.
func cleanName(s string) string {
	s = safename.Display(s)
	if r := []rune(s); len(r) > 100 {
		s = string(r[:100]) + "…"
	}
	return s
}

// Grant and response types a client may have.
var (
	supportedGrantTypes  = []string{"authorization_code", "refresh_token"}
	supportedAuthMethods = []string{"none", "client_secret_basic", "client_secret_post"}
)

// checkGrantTypes applies RFC 7591's default (authorization_code) and our
// limits: only the code and refresh grants, and the code grant present.
func checkGrantTypes(in []string) ([]string, error) {
	if len(in) == 0 {
		return []string{"authorization_code"}, nil
	}
	for _, g := range in {
		if !slices.Contains(supportedGrantTypes, g) {
			return nil, fmt.Errorf("grant type %q is not supported (only authorization_code and refresh_token)", g)
		}
	}
	if !slices.Contains(in, "authorization_code") {
		return nil, errors.New("grant_types must include authorization_code")
	}
	return slices.Compact(slices.Sorted(slices.Values(in))), nil
}

func checkResponseTypes(in []string) ([]string, error) {
	for _, t := range in {
		if t != "code" {
			return nil, fmt.Errorf("response type %q is not supported (only code)", t)
		}
	}
	return []string{"code"}, nil
}

// isMetadataDocumentURL reports whether a client id is to be read as the
// URL of a Client ID Metadata Document.
func (m *metadataDocuments) isMetadataDocumentURL(id string) bool {
	return strings.HasPrefix(id, "https://") || (m.insecure && strings.HasPrefix(id, "http://"))
}

// metadataDocuments resolves Client ID Metadata Documents
// (draft-ietf-oauth-client-id-metadata-document): a client_id that is an
// HTTPS URL with a path names a JSON document, served by the client's
// developer, that describes the client. It is fetched with the SSRF-safe
// client and cached in this process.
type metadataDocuments struct {
	fetch    *safehttp.Client
	insecure bool
	log      *slog.Logger
	// build completes a client (scopes, audience) for this server.
	build func(*oauthClient) *oauthClient
	// mayFetch is asked before each fetch (a cache miss): unique URLs
	// would otherwise make this server fetch from third parties as fast
	// as someone can send authorization requests.
	mayFetch func(ctx context.Context) bool

	group singleflight.Group
	mu    sync.Mutex
	cache map[string]cachedDocument
}

type cachedDocument struct {
	client  *oauthClient
	err     error
	expires time.Time
}

// Cache bounds. A document is kept for its Cache-Control max-age (at least
// a minute, so a client cannot make us fetch on every request, and at most
// a day), an hour when it names none; a failure for a minute, so a bad id
// repeated in a loop does not turn into a loop of fetches.
const (
	documentDefaultTTL = time.Hour
	documentMinTTL     = time.Minute
	documentMaxTTL     = 24 * time.Hour
	documentFailureTTL = time.Minute
	documentCacheMax   = 1000
)

func newMetadataDocuments(insecure bool, log *slog.Logger, build func(*oauthClient) *oauthClient) *metadataDocuments {
	return &metadataDocuments{
		fetch: safehttp.NewClient(safehttp.Options{
			Policy:   safehttp.Policy{AllowLoopback: insecure},
			Timeout:  5 * time.Second,
			MaxBytes: 64 << 10,
		}),
		insecure: insecure, log: log, build: build, cache: map[string]cachedDocument{},
	}
}

// errClientDocument wraps every failure to use a metadata document. Its
// detail is logged, never shown: which internal addresses answer is
// exactly what an SSRF probe wants to learn.
var errClientDocument = errors.New("the client metadata document could not be used")

// get returns the client a metadata document URL describes.
func (m *metadataDocuments) get(ctx context.Context, id string) (*oauthClient, error) {
	now := time.Now()
	m.mu.Lock()
	if e, ok := m.cache[id]; ok && now.Before(e.expires) {
		m.mu.Unlock()
		return e.client, e.err
	}
	m.mu.Unlock()
	if m.mayFetch != nil && !m.mayFetch(ctx) {
		return nil, fmt.Errorf("%w: too many metadata documents fetched for this address; try again later", errClientDocument)
	}
	v, _, _ := m.group.Do(id, func() (any, error) {
		// The fetch must not die with the first caller's request.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		c, ttl, err := m.load(fctx, id)
		if err != nil {
			m.log.Info("oauth: client metadata document refused", "client_id", id, "err", err)
			err = fmt.Errorf("%w: %v", errClientDocument, err)
			ttl = documentFailureTTL
		}
		m.store(id, cachedDocument{client: c, err: err, expires: time.Now().Add(ttl)})
		return cachedDocument{client: c, err: err}, nil
	})
	e := v.(cachedDocument)
	return e.client, e.err
}

func (m *metadataDocuments) store(id string, e cachedDocument) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.cache) >= documentCacheMax {
		now := time.Now()
		for k, v := range m.cache {
			if now.After(v.expires) || len(m.cache) >= documentCacheMax {
				delete(m.cache, k)
			}
		}
	}
	m.cache[id] = e
}

// checkDocumentURL applies the draft's rules to a client id URL: https,
// a path, no dot segments, no fragment, no credentials.
func (m *metadataDocuments) checkDocumentURL(id string) (*url.URL, error) {
	if len(id) > 2000 {
		return nil, errors.New("client id URL too long")
	}
	u, err := url.Parse(id)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, errors.New("client id is not a URL")
	}
	if u.Scheme != "https" && !(m.insecure && u.Scheme == "http") {
		return nil, errors.New("client id URL must use https")
	}
	if u.Path == "" || u.Path == "/" {
		return nil, errors.New("client id URL must have a path")
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if seg == "." || seg == ".." || strings.EqualFold(seg, "%2e") || strings.EqualFold(seg, "%2e%2e") {
			return nil, errors.New("client id URL has a dot segment")
		}
	}
	if u.Fragment != "" || strings.Contains(id, "#") || u.User != nil {
		return nil, errors.New("client id URL has a fragment or credentials")
	}
	return u, nil
}

// clientDocument is the part of a metadata document we read.
type clientDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ClientSecret            *string  `json:"client_secret"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at"`
}

func (m *metadataDocuments) load(ctx context.Context, id string) (*oauthClient, time.Duration, error) {
	u, err := m.checkDocumentURL(id)
	if err != nil {
		return nil, 0, err
	}
	resp, err := m.fetch.GetJSON(ctx, u)
	if err != nil {
		return nil, 0, err
	}
	var doc clientDocument
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return nil, 0, fmt.Errorf("document is not a client metadata object: %w", err)
	}
	if doc.ClientID != id {
		return nil, 0, fmt.Errorf("document's client_id %q is not its URL", doc.ClientID)
	}
	if doc.ClientSecret != nil || doc.ClientSecretExpiresAt != nil {
		return nil, 0, errors.New("a metadata document must not carry a client secret")
	}
	if doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none" {
		return nil, 0, fmt.Errorf("token_endpoint_auth_method %q is not supported for metadata documents (only none)", doc.TokenEndpointAuthMethod)
	}
	if len(doc.RedirectURIs) == 0 {
		return nil, 0, errors.New("document has no redirect_uris")
	}
	for _, r := range doc.RedirectURIs {
		if err := checkRedirectURI(r); err != nil {
			return nil, 0, err
		}
	}
	grants, err := checkGrantTypes(doc.GrantTypes)
	if err != nil {
		return nil, 0, err
	}
	responses, err := checkResponseTypes(doc.ResponseTypes)
	if err != nil {
		return nil, 0, err
	}
	c := m.build(&oauthClient{
		ID: id, Name: cleanName(doc.ClientName), Source: sourceMetadataDocument,
		Verified: u.Scheme == "https", Host: u.Host,
		RedirectURIs: doc.RedirectURIs, GrantTypes: grants, ResponseTypes: responses, AuthMethod: "none",
	})
	return c, cacheTTL(resp.Header), nil
}

// cacheTTL reads max-age from Cache-Control, within the cache's bounds.
func cacheTTL(h http.Header) time.Duration {
	for _, v := range h.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			k, val, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(k) {
			case "no-store", "no-cache":
				return documentMinTTL
			case "max-age":
				n, err := strconv.Atoi(strings.Trim(val, `"`))
				if err != nil || n < 0 {
					continue
				}
				return min(max(time.Duration(n)*time.Second, documentMinTTL), documentMaxTTL)
			}
		}
	}
	return documentDefaultTTL
}

// getClient is fosite's client lookup: a metadata document URL, or a
// registered client.
func (s *Server) getClient(ctx context.Context, id string) (*oauthClient, error) {
	if id == "" {
		return nil, fosite.ErrNotFound.WithHint("No client_id was given.")
	}
	if s.documents.isMetadataDocumentURL(id) {
		c, err := s.documents.get(ctx, id)
		if err != nil {
			return nil, fosite.ErrNotFound.WithWrap(err).WithHint("The client metadata document could not be fetched or is not valid.")
		}
		return c, nil
	}
	rec, err := s.store.GetClient(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return s.completeClient(&oauthClient{
		ID: rec.ID, Name: rec.Name, Source: sourceRegistered, SecretHash: rec.SecretHash,
		RedirectURIs: rec.RedirectURIs, GrantTypes: rec.GrantTypes, ResponseTypes: rec.ResponseTypes,
		AuthMethod: rec.TokenEndpointAuthMethod,
	}), nil
}

// completeClient gives a client what every client of this server may ask
// for: the product's scopes (and offline_access), its resources.
func (s *Server) completeClient(c *oauthClient) *oauthClient {
	c.scopes = s.clientScopes
	c.audience = s.resources
	return c
}
