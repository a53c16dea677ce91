package dunning

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// The export benchmark runs on demand, never in CI's test run:
//
//	go test ./dunning -run '^$' -bench 'Export' -benchtime 1x
//
// (KOBANA_TEST_ENGINES=sqlite or postgres narrows the engines.)

func timeMinutes(n int) time.Duration { return time.Duration(n) * time.Minute }

// seedCharges inserts n overdue charges of the debtor with external id
// debtorExt straight into the table, a thousand to a statement, with
// accented descriptions and fine and interest to compute.
func seedCharges(tb testing.TB, db *store.DB, orgID, debtorExt string, n int) {
	tb.Helper()
	ctx := context.Background()
	var debtorID string
	if err := db.Get(ctx, &debtorID, `SELECT id FROM dunning_debtors WHERE organization_id = ? AND external_id = ?`, orgID, debtorExt); err != nil {
		tb.Fatal(err)
	}
	now := store.Now()
	const batch = 1000
	for start := 0; start < n; start += batch {
		k := min(batch, n-start)
		var sb strings.Builder
		args := make([]any, 0, k*8)
		for i := 0; i < k; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(`(?, ?, ?, ?, ?, ?, '2026-01-10', ?, 20000, 10000, 'external', '[]', '{}', 'overdue', ?, ?)`)
			cents := int64(1000 + (start+i)%90000)
			args = append(args, store.NewID(), orgID, debtorID, fmt.Sprintf("pr-%06d", start+i), cents, cents,
				fmt.Sprintf("Prestação nº %d — manutenção", start+i), now, now)
		}
		if _, err := db.Exec(ctx, `INSERT INTO dunning_charges (id, organization_id, debtor_id, external_id, amount_cents, open_amount_cents, due_date,
			description, fine, interest, origin, tags, custom_data, status, created_at, updated_at) VALUES `+sb.String(), args...); err != nil {
			tb.Fatal(err)
		}
	}
}

// httpGet GETs path as the owner and answers the body to read.
func httpGet(fe *dunEnv, path string) (io.ReadCloser, error) {
	req, err := http.NewRequest("GET", fe.URL+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+fe.Token(fe.Owner, "api"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %d", path, resp.StatusCode)
	}
	return resp.Body, nil
}

// heapPeak samples the live heap every millisecond until stopped and
// answers the highest it saw above the baseline taken at the start.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
					peak.Store(m.HeapAlloc - base)
				}
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// BenchmarkExport100k writes the CSV of 100 000 charges (the export job's
// drawExport: one cursor over the rows, parts of exportPartBytes)
// and then streams it back as the download does. It reports the bytes
// allocated per export (B/op: allocations come and go, so this is
// throughput, not residence), peak-heap-MB, the highest live heap above
// the baseline seen while it ran — the memory bound: it stays near a part
// and a row, whatever the row count — and the file's size.
func BenchmarkExport100k(b *testing.B) {
	for _, engine := range storetest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			db := storetest.Open(b, engine, Migrations)
			ctx := context.Background()
			acc := accounts.New(db, accounts.Options{})
			org, err := acc.CreateOrganization(ctx, "Bench")
			if err != nil {
				b.Fatal(err)
			}
			now := store.Now()
			if _, err := db.Exec(ctx, `INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind, emails, phones, status, created_at, updated_at)
				VALUES (?, ?, 'joao', 'João da Conceição Araújo', '52998224725', 'natural', '[]', '[]', 'active', ?, ?)`, store.NewID(), org.ID, now, now); err != nil {
				b.Fatal(err)
			}
			const n = 100_000
			seedCharges(b, db, org.ID, "joao", n)
			s := layered(ledger.NewService(db, acc, nil, nil, nil))
			b.ReportAllocs()
			b.ResetTimer()
			var peak, size uint64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				id := store.NewID()
				if _, err := db.Exec(ctx, `INSERT INTO dunning_exports (id, organization_id, resource, filters, separator, status, amounts_on, created_by, created_at, updated_at)
					VALUES (?, ?, 'charges', '{}', ';', 'generating', '2026-03-10', 'bench', ?, ?)`, id, org.ID, now, now); err != nil {
					b.Fatal(err)
				}
				e, err := files.GetExport(ctx, db, org.ID, id)
				if err != nil {
					b.Fatal(err)
				}
				stop := heapPeak()
				b.StartTimer()
				rows, bytes, err := s.DrawExport(ctx, e)
				if err != nil || rows != n {
					b.Fatalf("drawExport: %d %v", rows, err)
				}
				var streamed int64
				if err := s.StreamExport(ctx, id, func(p []byte) error { streamed += int64(len(p)); return nil }); err != nil || streamed != bytes {
					b.Fatalf("stream: %d of %d, %v", streamed, bytes, err)
				}
				b.StopTimer()
				peak = max(peak, stop())
				size = uint64(bytes)
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(size)/(1<<20), "file-MB")
		})
	}
}
