package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// endpointsFile, in the data directory, records the public base URL of
// each product a running serve listens on, so that `kobana-mcp token`
// signs for the issuer that serve verifies even when serve was started on
// other ports (docs/operating.md "Sign-in, tokens and scopes").
const endpointsFile = "endpoints.json"

// recordEndpoints writes the products' public URLs, replacing the file
// atomically (a token command reading it never sees half a file).
func recordEndpoints(dataDir string, urls map[string]string) error {
	b, err := json.MarshalIndent(urls, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dataDir, endpointsFile+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dataDir, endpointsFile))
}

// recordedEndpoint is the public URL serve last recorded for product, or
// "" when there is none.
func recordedEndpoint(dataDir, product string) string {
	b, err := os.ReadFile(filepath.Join(dataDir, endpointsFile))
	if errors.Is(err, os.ErrNotExist) || err != nil {
		return ""
	}
	var urls map[string]string
	if json.Unmarshal(b, &urls) != nil {
		return ""
	}
	return urls[product]
}
