package ratelimit_test

import (
	"context"
	"testing"

	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
)

// BenchmarkCharge is one read charged to a token and its organization in
// the in-memory store, what every signed-in request pays
// (docs/performance.md, "Identity read cache").
func BenchmarkCharge(b *testing.B) {
	rates := ratelimit.Rates{Reads: ratelimit.MustParseRate("1000000000-S"), Writes: ratelimit.MustParseRate("1000000000-S"),
		OrgReads: ratelimit.MustParseRate("1000000000-S"), OrgWrites: ratelimit.MustParseRate("1000000000-S")}
	l := ratelimit.NewLimiter(ratelimit.NewMemoryStore(), "inbox", rates, nil)
	id := &identity.Identity{Issuer: "http://127.0.0.1:8081", Subject: "usr_1", ClientID: "cli_1", OrganizationID: "org_1"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if d := l.Charge(ctx, id, false); !d.Allowed {
			b.Fatal("refused")
		}
	}
}
