package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestServeRefusalsSpellTheProductsCodes: a refusal written before the
// product's API answers — here the unauthenticated limit's 429 — spells
// its code as that product's API does (Dunning's upper case), through the
// server's base context (productkit.Listener.BaseContext; docs/decisions.md
// "Error codes").
func TestServeRefusalsSpellTheProductsCodes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	url, done, _ := inProcessServe(t, ctx, "--data-dir", t.TempDir(), "--products", "dunning", "--dunning-addr", "127.0.0.1:0",
		"--unauthenticated-limit", "1-M")
	t.Cleanup(func() { cancel(); <-done })
	api := strings.TrimSuffix(url, "/mcp") + "/v1/me"
	var codes []string
	for range 2 {
		resp, err := http.Get(api)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Error struct{ Code string } }
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, resp.Status+" "+body.Error.Code)
	}
	if codes[0] != "401 Unauthorized UNAUTHORIZED" || codes[1] != "429 Too Many Requests RATE_LIMITED" {
		t.Fatalf("answers %q, want Dunning's codes on the 401 and on the limit's 429", codes)
	}
}
