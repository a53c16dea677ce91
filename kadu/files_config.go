package kadu

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kobana/kobana-mcp/platform/blob"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/rest"
)

// FilesConfig is where Kadu keeps files and how their URLs are signed
// (docs/decisions.md "Kadu: files, results and webhook rotation").
type FilesConfig struct {
	// BucketURL is the blob bucket (platform/blob): "" for the local
	// directory <data dir>/kadu-files, file:///dir, or s3://bucket?… for an
	// S3-compatible bucket shared by every replica.
	BucketURL string
	// URLSecret signs the product's own upload and download URLs (the
	// local bucket's); every replica must share it. Empty: derived from
	// the deployment secret (--state-secrets).
	URLSecret string
	// MaxBytes is the largest file accepted (default 25 MB).
	MaxBytes int64

	// bucket is an already open bucket (tests), used instead of BucketURL.
	bucket *blob.Bucket
}

const (
	defaultMaxFileBytes = 25 << 20
	// uploadTTL is how long an upload slot waits for its bytes and its
	// confirmation; downloadTTL how long a download URL works.
	uploadTTL   = 15 * time.Minute
	downloadTTL = 5 * time.Minute
)

// settings declares the files' settings (docs/operating.md
// "Configuration").
func (c *FilesConfig) settings(s *productkit.Settings) func() error {
	bucket := s.Add("kadu-files-bucket", "KOBANA_KADU_FILES_BUCKET", "", "where Kadu keeps files: empty for <data-dir>/kadu-files, file:///dir, or s3://bucket?region=…&endpoint=… (S3-compatible, shared by every replica; AWS credentials from the environment)")
	secret := s.Add("kadu-files-url-secret", "KOBANA_KADU_FILES_URL_SECRET", "", "secret signing the product's own file upload and download URLs, the same on every replica; empty: derived from --state-secrets")
	maxBytes := s.Add("kadu-files-max-bytes", "KOBANA_KADU_FILES_MAX_BYTES", strconv.Itoa(defaultMaxFileBytes), "the largest file Kadu accepts, in bytes")
	return func() error {
		n, err := strconv.ParseInt(*maxBytes, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("--kadu-files-max-bytes must be a positive number of bytes")
		}
		if *bucket != "" {
			if u, err := url.Parse(*bucket); err != nil || (u.Scheme != "file" && u.Scheme != "s3") {
				return fmt.Errorf("--kadu-files-bucket must be file:///dir or s3://bucket?…")
			}
		}
		c.BucketURL, c.URLSecret, c.MaxBytes = *bucket, *secret, n
		return nil
	}
}

// fileStore is the service's view of files: the bucket, the URL key and
// the product's public URL the local bucket's URLs start with.
type fileStore struct {
	bucket   *blob.Bucket
	openErr  error
	key      []byte
	base     string
	maxBytes int64
}

// newFileStore opens the configured bucket. A bucket that cannot be
// opened leaves files unavailable (503 with the reason) rather than the
// product down.
func newFileStore(deps productkit.Deps, cfg FilesConfig) *fileStore {
	fs := &fileStore{base: deps.PublicURL, maxBytes: cfg.MaxBytes}
	if fs.maxBytes <= 0 {
		fs.maxBytes = defaultMaxFileBytes
	}
	switch {
	case cfg.URLSecret != "":
		fs.key = []byte(cfg.URLSecret)
	case len(deps.Secret) > 0:
		m := hmac.New(sha256.New, deps.Secret)
		m.Write([]byte("kadu files url signing"))
		fs.key = m.Sum(nil)
	default:
		// No deployment secret (tests of the transport): one per process.
		fs.key = make([]byte, 32)
		_, _ = rand.Read(fs.key)
	}
	switch {
	case cfg.bucket != nil:
		fs.bucket = cfg.bucket
	case cfg.BucketURL != "":
		fs.bucket, fs.openErr = blob.Open(context.Background(), cfg.BucketURL, "")
	case deps.DataDir != "":
		fs.bucket, fs.openErr = blob.OpenDir(filepath.Join(deps.DataDir, "kadu-files"))
	default:
		fs.openErr = fmt.Errorf("no bucket: set --kadu-files-bucket or a data directory")
	}
	return fs
}

// sign is the signature of a URL allowing method on file id, for bodies
// of at most max bytes (0 for a download), until exp.
func (fs *fileStore) sign(method, id string, max int64, exp time.Time) string {
	m := hmac.New(sha256.New, fs.key)
	fmt.Fprintf(m, "%s\n%s\n%d\n%d", method, id, max, exp.Unix())
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// signedURL is the product's own URL for method on file id.
func (fs *fileStore) signedURL(method, id string, max int64, exp time.Time) string {
	path := "/files/download/"
	if method == "PUT" {
		path = "/files/upload/"
	}
	q := url.Values{"expires": {strconv.FormatInt(exp.Unix(), 10)}, "signature": {fs.sign(method, id, max, exp)}}
	if method == "PUT" {
		q.Set("max", strconv.FormatInt(max, 10))
	}
	return fs.base + path + url.PathEscape(id) + "?" + q.Encode()
}

// verify checks a signed URL's query for method on id at now: "" when it
// holds, else why not (the signature is checked before the expiry, so a
// forged expiry is a bad signature).
func (fs *fileStore) verify(method, id string, q url.Values, now time.Time) (max int64, problem string) {
	exp, err1 := strconv.ParseInt(q.Get("expires"), 10, 64)
	if method == "PUT" {
		var err error
		if max, err = strconv.ParseInt(q.Get("max"), 10, 64); err != nil {
			return 0, "signature"
		}
	}
	if err1 != nil {
		return 0, "signature"
	}
	want := fs.sign(method, id, max, time.Unix(exp, 0))
	if !hmac.Equal([]byte(want), []byte(q.Get("signature"))) {
		return 0, "signature"
	}
	if !now.Before(time.Unix(exp, 0)) {
		return 0, "expired"
	}
	return max, ""
}

// Ready is the bucket and the most bytes a file may hold, or 503 saying
// why there is no bucket (runtime.Bucket: the runtime's file tools read
// and write through it). fs may be nil.
func (fs *fileStore) Ready() (*blob.Bucket, int64, error) {
	if fs == nil || fs.bucket == nil {
		why := "no bucket"
		if fs != nil && fs.openErr != nil {
			why = fs.openErr.Error()
		}
		return nil, 0, &rest.Error{Status: http.StatusServiceUnavailable, Code: "files_unavailable", Message: "files cannot be stored in this deployment: " + why}
	}
	return fs.bucket, fs.maxBytes, nil
}
