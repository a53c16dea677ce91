package kadu

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"testing"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/blob"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit"
)

// csvStream yields n bytes of CSV-like text without holding them.
type csvStream struct{ left int64 }

func (s *csvStream) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	n := int64(len(p))
	if n > s.left {
		n = s.left
	}
	for i := range p[:n] {
		p[i] = "0001;2026-03-10;1500,00\n"[i%24]
	}
	s.left -= n
	return int(n), nil
}

// BenchmarkUpload25MB streams a 25 MB body through the product's own
// upload URL into the local bucket and reports the bytes allocated per
// uploaded MB: memory stays flat (a copy buffer, never the body).
func BenchmarkUpload25MB(b *testing.B) {
	const size = 25 << 20
	db := storetest.Open(b, store.SQLite, Migrations)
	ctx := context.Background()
	org, err := accounts.New(db, accounts.Options{}).CreateOrganization(ctx, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	bucket, err := blob.OpenDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	s := newService(productkit.Deps{DB: db, PublicURL: "http://kadu.test"}, Config{Files: FilesConfig{bucket: bucket, URLSecret: "bench"}})
	var allocated uint64
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		f, _ := s.newUploadSlot(org.ID, "", &createFileIn{Filename: "r.csv", ContentType: "text/csv", ByteSize: size})
		if err := records.InsertFile(ctx, db, f); err != nil {
			b.Fatal(err)
		}
		u := s.files.signedURL(http.MethodPut, f.ID, size, *f.UploadExpiresAt)
		req := httptest.NewRequest(http.MethodPut, u, &csvStream{left: size})
		req.ContentLength = size
		req.SetPathValue("id", f.ID)
		w := httptest.NewRecorder()
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		b.StartTimer()
		s.serveUpload(w, req)
		b.StopTimer()
		goruntime.ReadMemStats(&after)
		allocated += after.TotalAlloc - before.TotalAlloc
		if w.Code != 200 {
			b.Fatalf("upload: %d %s", w.Code, w.Body)
		}
		_ = bucket.Delete(ctx, f.StorageKey)
		b.StartTimer()
	}
	b.ReportMetric(float64(allocated)/float64(b.N)/25, "B/uploaded-MB")
}
