package kadu

import (
	"context"
	"net/http"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/safename"
)

// fileStoreReady is the bucket, or 503 saying why there is none.
func (s *service) fileStoreReady() (*fileStore, error) {
	if _, _, err := s.files.Ready(); err != nil {
		return nil, err
	}
	return s.files, nil
}

// downloadURL is a five-minute URL for a ready file.
func (s *service) downloadURL(ctx context.Context, f *records.File) (string, time.Time, error) {
	return s.fileURL(ctx, f, downloadTTL)
}

// fileURL is a URL that downloads a ready file for ttl: S3's presigned
// GET, or the product's own signed URL on the local bucket.
func (s *service) fileURL(ctx context.Context, f *records.File, ttl time.Duration) (string, time.Time, error) {
	fs, err := s.fileStoreReady()
	if err != nil {
		return "", time.Time{}, err
	}
	if f.Status != records.FileReady {
		return "", time.Time{}, refusal(http.StatusConflict, "file_not_ready", "the file is "+f.Status+": only a ready file can be downloaded")
	}
	exp := s.clock().Add(ttl).Truncate(time.Second)
	if fs.bucket.Presigns() {
		u, err := fs.bucket.PresignGet(ctx, f.StorageKey, contentDisposition(f.Filename), ttl)
		return u, exp, err
	}
	return fs.signedURL(http.MethodGet, f.ID, 0, exp), exp, nil
}

// contentDisposition names the file for the browser: RFC 6266 through
// platform/safename, which drops what File would have refused from a
// name stored before names were checked.
func contentDisposition(name string) string { return safename.ContentDisposition(name) }
