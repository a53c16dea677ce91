// Package blobtest opens buckets for tests: a temporary local directory,
// and an S3 bucket served by gofakes3 on loopback in the test process
// (the S3 protocol itself, not a mock of package blob).
package blobtest

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/kobana/kobana-mcp/platform/blob"
)

// Dir is a bucket in a temporary directory, closed with the test.
func Dir(t testing.TB) *blob.Bucket {
	t.Helper()
	b, err := blob.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// Server is an S3-compatible server in the test process.
type Server struct {
	// URL opens the bucket with blob.Open.
	URL string
	// Bucket is the bucket, already open.
	Bucket *blob.Bucket
	// Endpoint is the server's base URL.
	Endpoint string
}

// fakeCredentials sets the AWS SDK's credentials in the environment, once
// for the test process and never unset: every S3 server here takes the
// same fake ones (gofakes3 does not check them), and t.Setenv would keep
// the tests that use S3 from running in parallel.
var fakeCredentials sync.Once

// S3 starts gofakes3 with one bucket and opens it. Credentials are set
// in the environment for the AWS SDK (fakeCredentials).
func S3(t testing.TB) *Server {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("kobana-files"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	fakeCredentials.Do(func() {
		_ = os.Setenv("AWS_ACCESS_KEY_ID", "test")
		_ = os.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	})
	q := url.Values{"endpoint": {srv.URL}, "region": {"us-east-1"}, "use_path_style": {"true"}, "disable_https": {"true"},
		"response_checksum_validation": {"when_required"}}
	raw := "s3://kobana-files?" + q.Encode()
	b, err := blob.Open(context.Background(), raw, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &Server{URL: raw, Bucket: b, Endpoint: srv.URL}
}
