package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The signed-in dunning_charges_list {"per_page":10} of
// PRODUCT=dunning scripts/bench.sh, in process (docs/performance.md,
// "Dunning listings (issue 28)"): the listener as serve builds it, one
// debtor and 12 charges created through the tools as the script creates
// them, then the listing of the first 10.
//
//	go test ./cmd/kobana-mcp -run '^$' -bench PathDunningChargesList -benchtime 2000x -benchmem

// pathDunningChargesList is the listing's request.
var pathDunningChargesList = pathCase{product: "dunning", method: "tools/call",
	params: `"name":"dunning_charges_list","arguments":{"per_page":10},`, tool: "dunning_charges_list", want: `\"total_pages\": 2`}

// dunningBenchCharges is how many charges scripts/bench.sh creates.
const dunningBenchCharges = 12

// seedDunningBench creates what scripts/bench.sh creates before its
// listing: the debtor "bench" and n charges, through the tools.
func seedDunningBench(tb testing.TB, h http.Handler, tok string, n int) {
	tb.Helper()
	call := func(tool, args string) {
		r := inboxRequest(tok, "tools/call", `"name":"`+tool+`","arguments":`+args+`,`, tool)
		if status, got := r.serve(h); status != 200 || strings.Contains(got, `"isError":true`) {
			tb.Fatalf("%s: status %d, answer %.500s", tool, status, got)
		}
	}
	call("dunning_debtors_upsert", `{"external_id":"bench","name":"Maria Souza","document":"52998224725","emails":["maria@example.com"]}`)
	for i := 1; i <= n; i++ {
		call("dunning_charges_create", fmt.Sprintf(`{"debtor_id":"bench","external_id":"c%d","amount":%d.5,"due_date":"2026-0%d-10","description":"Mensalidade %d","fine_percent":2,"interest_percent":1}`,
			i, i, i%9+1, i))
	}
}

func BenchmarkPathDunningChargesList(b *testing.B) {
	c := pathDunningChargesList
	h, tok := benchProduct(b, c.product)
	seedDunningBench(b, h, tok, dunningBenchCharges)
	c.request(tok).run(b, h, c.want)
}

// TestPathDunningChargesListServes serves the benchmark's request once,
// so CI keeps it working: ten charges of twelve, two pages.
func TestPathDunningChargesListServes(t *testing.T) {
	t.Parallel()
	c := pathDunningChargesList
	h, tok := benchProduct(t, c.product)
	seedDunningBench(t, h, tok, dunningBenchCharges)
	status, got := c.request(tok).serve(h)
	if status != 200 || !strings.Contains(got, c.want) || strings.Count(got, `\"external_id\": \"c`) != 10 {
		t.Fatalf("status %d, answer %.1500s; want ten charges and %q", status, got, c.want)
	}
}

// BenchmarkPathDunningChargesListEmpty is the same listing of an
// organization without charges: the path's fixed cost, which the
// listing's rows add to (docs/performance.md, "Dunning listings, third
// round").
func BenchmarkPathDunningChargesListEmpty(b *testing.B) {
	c := pathDunningChargesList
	c.want = `\"total\": 0`
	h, tok := benchProduct(b, c.product)
	c.request(tok).run(b, h, c.want)
}
