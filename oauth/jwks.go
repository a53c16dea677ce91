package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// RemoteJWKS is the key set of an external authorization server, fetched
// from its jwks_uri and cached. An unknown key id triggers one refetch (the
// issuer may have rotated), at most once per MinRefresh, so a flood of
// tokens with made-up key ids cannot turn into a flood of fetches.
type RemoteJWKS struct {
	URL        string
	Client     *http.Client
	MaxAge     time.Duration // how long a fetched set is trusted (default 1 h)
	MinRefresh time.Duration // least time between two fetches (default 30 s)
	Now        func() time.Time

	mu      sync.Mutex
	set     jose.JSONWebKeySet
	fetched time.Time
}

func (s *RemoteJWKS) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Key returns the key with that id, fetching the set when it is stale or
// does not know the id.
func (s *RemoteJWKS) Key(ctx context.Context, kid string) (*jose.JSONWebKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	maxAge, minRefresh := s.MaxAge, s.MinRefresh
	if maxAge <= 0 {
		maxAge = time.Hour
	}
	if minRefresh <= 0 {
		minRefresh = 30 * time.Second
	}
	if keys := s.set.Key(kid); len(keys) > 0 && s.now().Sub(s.fetched) < maxAge {
		return &keys[0], nil
	}
	if !s.fetched.IsZero() && s.now().Sub(s.fetched) < minRefresh {
		if keys := s.set.Key(kid); len(keys) > 0 {
			return &keys[0], nil
		}
		return nil, nil
	}
	if err := s.fetch(ctx); err != nil {
		return nil, err
	}
	if keys := s.set.Key(kid); len(keys) > 0 {
		return &keys[0], nil
	}
	return nil, nil
}

func (s *RemoteJWKS) fetch(ctx context.Context) error {
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("oauth: fetching JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oauth: fetching JWKS: status %d", resp.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return fmt.Errorf("oauth: JWKS: %w", err)
	}
	s.set, s.fetched = set, s.now()
	return nil
}
