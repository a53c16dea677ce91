package inbox

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

// BenchmarkListingAtScale measures one page of emails_list through the
// route (HTTP, token, the handler, the query) in an organization of 1 000
// e-mails and in one of 1 000 000, side by side in one run (docs/performance.md,
// "Benchmarks", "Listings at scale"). It seeds with one INSERT … SELECT,
// so it runs on demand only:
//
//	KOBANA_BENCH_SCALE=1 go test ./inbox -run '^$' -bench ListingAtScale -benchtime 2s
//
// (KOBANA_TEST_ENGINES=postgres or sqlite narrows the engines.)
func BenchmarkListingAtScale(b *testing.B) {
	if os.Getenv("KOBANA_BENCH_SCALE") != "1" {
		b.Skip("seeds 1 000 000 e-mails: set KOBANA_BENCH_SCALE=1")
	}
	for _, engine := range storetest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			db := storetest.Open(b, engine, Migrations)
			e := producttest.Start(b, db, Spec(Config{SMTPAddr: "off"}), producttest.Options{})
			sizes := []struct {
				n    int
				user func() (string, string, string) // org, workspace, token
			}{
				{1000, func() (string, string, string) { return e.Theirs.ID, e.TheirWS.ID, e.Token(e.Other, "api") }},
				{1000000, func() (string, string, string) { return e.Mine.ID, e.MineWS.ID, e.Token(e.Owner, "api") }},
			}
			for _, size := range sizes {
				org, ws, token := size.user()
				a, bb := benchInbox(b, e, token, fmt.Sprintf("a%d@inbox.localhost", size.n)), benchInbox(b, e, token, fmt.Sprintf("b%d@inbox.localhost", size.n))
				start := time.Now()
				tag := fmt.Sprintf("s%d", size.n)
				seedEmailRows(b, db, tag, org, ws, a, bb, size.n)
				b.Logf("%s: seeded %d e-mails in %s", engine, size.n, time.Since(start).Round(time.Millisecond))
				mid := size.n / 2
				middle := restkit.EncodeCursor(emailCursorKey(emailRecord{ID: fmt.Sprintf("%s-%010d", tag, mid), ReceivedAt: seedBase.Add(-time.Duration(mid) * time.Second)}))
				window := seedBase.Add(-time.Duration(mid) * time.Second)
				pages := []struct{ name, query string }{
					{"first", ""},
					{"middle", "?cursor=" + url.QueryEscape(middle)},
					{"status", "?status=failed"},
					{"status_middle", "?status=failed&cursor=" + url.QueryEscape(middle)},
					{"inbox_status", "?status=failed&inbox_id=" + bb},
					{"dates", "?received_from=" + url.QueryEscape(window.Add(-time.Hour).Format(time.RFC3339)) + "&received_to=" + url.QueryEscape(window.Format(time.RFC3339))},
					{"from", "?from=sender7"},
				}
				for _, p := range pages {
					b.Run(fmt.Sprintf("rows=%d/%s", size.n, p.name), func(b *testing.B) {
						for b.Loop() {
							code, body := e.DoToken(token, "GET", "/api/v1/emails"+p.query, nil)
							if code != 200 {
								b.Fatalf("%d %s", code, body)
							}
							var doc struct{ Data []json.RawMessage }
							if err := json.Unmarshal([]byte(body), &doc); err != nil || len(doc.Data) != restkit.DefaultLimit {
								b.Fatalf("%d e-mails: %v %.200s", len(doc.Data), err, body)
							}
						}
					})
				}
			}
		})
	}
}

func benchInbox(b *testing.B, e *producttest.Env, token, address string) string {
	code, out := e.DoToken(token, "POST", "/api/v1/inboxes", map[string]any{"label": "bench", "email": address})
	if code != 201 {
		b.Fatalf("create inbox: %d %s", code, out)
	}
	var doc struct{ Data struct{ ID string } }
	_ = json.Unmarshal([]byte(out), &doc)
	return doc.Data.ID
}
