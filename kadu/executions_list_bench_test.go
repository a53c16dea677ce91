package kadu

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// BenchmarkListingAtScale measures one page of kadu_executions_list
// through the route (HTTP, token, the handler, the query) in an
// organization of 1 000 executions and in one of 1 000 000, side by side
// in one run (docs/performance.md, "Benchmarks", "Listings at scale"). It seeds with
// one INSERT … SELECT, so it runs on demand only:
//
//	KOBANA_BENCH_SCALE=1 go test ./kadu -run '^$' -bench ListingAtScale -benchtime 2s
//
// (KOBANA_TEST_ENGINES=postgres or sqlite narrows the engines.)
func BenchmarkListingAtScale(b *testing.B) {
	if os.Getenv("KOBANA_BENCH_SCALE") != "1" {
		b.Skip("seeds 1 000 000 executions: set KOBANA_BENCH_SCALE=1")
	}
	for _, engine := range storetest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			db := storetest.Open(b, engine, Migrations)
			cfg := Config{}
			cfg.Runtime.Hold = true
			e := producttest.Start(b, db, specWith(cfg), producttest.Options{})
			for _, size := range []struct {
				n          int
				org, owner string
				token      string
			}{
				{1000, e.Theirs.ID, e.Other.ID, e.Token(e.Other, "api")},
				{1000000, e.Mine.ID, e.Owner.ID, e.Token(e.Owner, "api")},
			} {
				tag := fmt.Sprintf("s%d", size.n)
				start := time.Now()
				a, _ := seedExecutions(b, db, tag, size.org, size.owner, size.n, 1)
				b.Logf("%s: seeded %d executions in %s", engine, size.n, time.Since(start).Round(time.Millisecond))
				middle := url.QueryEscape(restkit.EncodeCursor(fmt.Sprintf("%010d-%s", size.n/2+10, tag)))
				for _, p := range []struct{ name, query string }{
					{"first", ""},
					{"middle", "?cursor=" + middle},
					{"task", "?task_id=" + a},
					{"task_middle", "?task_id=" + a + "&cursor=" + middle},
					{"status", "?status=failed"},
					{"trigger", "?trigger=schedule&cursor=" + middle},
					{"task_status", "?task_id=" + a + "&status=succeeded"},
				} {
					b.Run(fmt.Sprintf("rows=%d/%s", size.n, p.name), func(b *testing.B) {
						for b.Loop() {
							code, body := e.DoToken(size.token, "GET", "/api/v1/executions"+p.query, nil)
							var doc struct{ Data []json.RawMessage }
							if err := json.Unmarshal([]byte(body), &doc); code != 200 || err != nil || len(doc.Data) != restkit.DefaultLimit {
								b.Fatalf("%d, %d executions: %v %.200s", code, len(doc.Data), err, body)
							}
						}
					})
				}
			}
		})
	}
}
