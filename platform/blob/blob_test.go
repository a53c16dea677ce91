package blob_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/blob"
	"github.com/kobana/kobana-mcp/platform/blob/blobtest"
)

// eachBucket runs f on the local bucket and on an S3 bucket served by
// gofakes3 in the test process.
func eachBucket(t *testing.T, f func(t *testing.T, b *blob.Bucket)) {
	t.Run("file", func(t *testing.T) { f(t, blobtest.Dir(t)) })
	t.Run("s3", func(t *testing.T) { f(t, blobtest.S3(t).Bucket) })
}

func TestPutOpenDelete(t *testing.T) {
	t.Parallel()
	eachBucket(t, func(t *testing.T, b *blob.Bucket) {
		ctx := context.Background()
		body := strings.Repeat("vencimento;valor\n", 1000)
		n, err := b.Put(ctx, "org/a/file", strings.NewReader(body), "text/csv", int64(len(body)))
		if err != nil || n != int64(len(body)) {
			t.Fatalf("Put = %d, %v", n, err)
		}
		a, err := b.Attributes(ctx, "org/a/file")
		if err != nil || a.Size != int64(len(body)) || a.ContentType != "text/csv" {
			t.Fatalf("Attributes = %+v, %v", a, err)
		}
		r, err := b.Open(ctx, "org/a/file")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(r)
		r.Close()
		if string(got) != body {
			t.Fatalf("read %d bytes, want %d", len(got), len(body))
		}
		r, err = b.OpenRange(ctx, "org/a/file", 0, 16)
		if err != nil {
			t.Fatal(err)
		}
		got, _ = io.ReadAll(r)
		r.Close()
		if string(got) != "vencimento;valor" {
			t.Fatalf("range = %q", got)
		}
		if err := b.Delete(ctx, "org/a/file"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Open(ctx, "org/a/file"); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("Open after Delete = %v, want ErrNotFound", err)
		}
		if _, err := b.Attributes(ctx, "org/a/file"); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("Attributes after Delete = %v", err)
		}
		if err := b.Delete(ctx, "org/a/file"); err != nil {
			t.Fatalf("second Delete = %v, want nil", err)
		}
	})
}

func TestPutOverLimitKeepsNothing(t *testing.T) {
	t.Parallel()
	eachBucket(t, func(t *testing.T, b *blob.Bucket) {
		ctx := context.Background()
		_, err := b.Put(ctx, "big", bytes.NewReader(make([]byte, 2048)), "application/octet-stream", 1024)
		if !errors.Is(err, blob.ErrTooLarge) {
			t.Fatalf("Put = %v, want ErrTooLarge", err)
		}
		if ok, err := b.Exists(ctx, "big"); err != nil || ok {
			t.Fatalf("Exists after a refused Put = %v, %v", ok, err)
		}
		// Exactly the limit is fine.
		if _, err := b.Put(ctx, "big", bytes.NewReader(make([]byte, 1024)), "application/octet-stream", 1024); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPresignOnlyOnS3(t *testing.T) {
	t.Parallel()
	if _, _, err := blobtest.Dir(t).PresignPut(context.Background(), "k", "text/csv", 3, time.Minute); err == nil {
		t.Fatal("the local bucket presigned a URL")
	}
	s := blobtest.S3(t)
	ctx := context.Background()
	u, h, err := s.Bucket.PresignPut(ctx, "org/x", "text/csv", 9, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(u, "X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost") {
		t.Fatalf("length and type are not signed into %s", u)
	}
	req, _ := http.NewRequest(http.MethodPut, u, strings.NewReader("a;b\n1;2\n\n"))
	for k := range h {
		req.Header.Set(k, h.Get(k))
	}
	req.ContentLength = 9
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("PUT = %d", resp.StatusCode)
	}
	g, err := s.Bucket.PresignGet(ctx, "org/x", `attachment; filename="r.csv"`, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = http.Get(g)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "a;b\n1;2\n\n" || resp.Header.Get("Content-Disposition") != `attachment; filename="r.csv"` {
		t.Fatalf("GET = %q, %q", body, resp.Header.Get("Content-Disposition"))
	}
}

func TestOpenURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b, err := blob.Open(context.Background(), "", dir)
	if err != nil || b.Kind() != "file" {
		t.Fatalf("Open(\"\") = %v, %v", b, err)
	}
	b.Close()
	if _, err := blob.Open(context.Background(), "gs://x", dir); err == nil {
		t.Fatal("opened a gs:// bucket")
	}
	s := blobtest.S3(t)
	b, err = blob.Open(context.Background(), s.URL, "")
	if err != nil || !b.Presigns() {
		t.Fatalf("Open(%s) = %v", s.URL, err)
	}
	defer b.Close()
	if _, err := b.Put(context.Background(), "k", strings.NewReader("x"), "text/plain", -1); err != nil {
		t.Fatal(fmt.Errorf("put through a URL-opened bucket: %w", err))
	}
}
