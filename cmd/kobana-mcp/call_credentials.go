package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/kobana/kobana-mcp/mcp/client/signin"
)

// credentialStore keeps the sign-ins of `kobana-mcp call`: one file per
// MCP endpoint, readable by the person only (0600 in a 0700 directory),
// holding the access token, the refresh token and what refreshing needs
// (signin.Credentials). A lock file beside each serialises refreshes:
// servers rotate the refresh token on every use and revoke the whole
// grant when a retired one is presented (oauth/server), so two calls must
// never refresh with the same one (docs/decisions.md "kobana-mcp call
// signs in with OAuth").
type credentialStore struct{ dir string }

// defaultCredentialsDir is $KOBANA_CREDENTIALS_DIR, else kobana-mcp's
// folder in the person's configuration directory
// (~/.config/kobana-mcp/credentials on Linux).
func defaultCredentialsDir() string {
	if d := os.Getenv("KOBANA_CREDENTIALS_DIR"); d != "" {
		return d
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "kobana-mcp", "credentials")
	}
	return filepath.Join(".", "kobana-mcp-credentials")
}

// path is the file of an endpoint's credentials: its URL with every
// character but letters, digits, dots and dashes as "_".
func (s credentialStore) path(endpoint string) string {
	name := strings.Map(keepFileChar, strings.TrimPrefix(strings.TrimPrefix(endpoint, "https://"), "http://"))
	if strings.HasPrefix(endpoint, "http://") {
		name = "http_" + name
	}
	return filepath.Join(s.dir, name+".json")
}

func keepFileChar(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
		return r
	}
	return '_'
}

// lock takes the endpoint's lock, waiting at most a minute (another call
// refreshing the same sign-in).
func (s credentialStore) lock(ctx context.Context, endpoint string) (*flock.Flock, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, err
	}
	l := flock.New(s.path(endpoint)+".lock", flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ok, err := l.TryLockContext(ctx, 100*time.Millisecond)
	if err == nil && !ok {
		err = errors.New("another kobana-mcp call holds it")
	}
	if err != nil {
		return nil, fmt.Errorf("locking the credentials of %s: %w", endpoint, err)
	}
	return l, nil
}

// read returns the endpoint's credentials, or nil when there are none.
func (s credentialStore) read(endpoint string) (*signin.Credentials, error) {
	b, err := os.ReadFile(s.path(endpoint))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c signin.Credentials
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s is not a credentials file: %v", s.path(endpoint), err)
	}
	if c.Endpoint != endpoint {
		// Two endpoints that map to one file name: not this one's.
		return nil, nil
	}
	return &c, nil
}

// write keeps c, replacing the file at once (a temporary file, 0600,
// renamed over it), so a reader never sees half of it.
func (s credentialStore) write(c *signin.Credentials) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".credentials-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), s.path(c.Endpoint))
}

// current returns the endpoint's access token, refreshed first when it
// expired (the new tokens kept before it is used); "" when there is no
// sign-in. An error wrapping signin.ErrSignInAgain means the sign-in
// cannot be refreshed.
func (s credentialStore) current(ctx context.Context, hc *http.Client, endpoint string) (string, error) {
	l, err := s.lock(ctx, endpoint)
	if err != nil {
		return "", err
	}
	defer l.Unlock()
	c, err := s.read(endpoint)
	if err != nil || c == nil {
		return "", err
	}
	changed, err := c.Refresh(ctx, hc)
	if err != nil {
		return "", err
	}
	if changed {
		if err := s.write(c); err != nil {
			return "", fmt.Errorf("keeping the refreshed token: %w", err)
		}
	}
	return c.Token.AccessToken, nil
}

// keep stores a new sign-in.
func (s credentialStore) keep(ctx context.Context, c *signin.Credentials) error {
	l, err := s.lock(ctx, c.Endpoint)
	if err != nil {
		return err
	}
	defer l.Unlock()
	return s.write(c)
}

// forget deletes the endpoint's sign-in and returns what it held (nil
// when there was none), so the caller may revoke it.
func (s credentialStore) forget(ctx context.Context, endpoint string) (*signin.Credentials, error) {
	l, err := s.lock(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	c, err := s.read(endpoint)
	if c == nil || err != nil {
		return nil, err
	}
	if err := os.Remove(s.path(endpoint)); err != nil {
		return nil, err
	}
	return c, nil
}
