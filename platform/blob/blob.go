// Package blob stores the bytes of files behind one interface, on
// gocloud.dev/blob: a directory on the local filesystem (fileblob, the
// embedded default under the data directory) or an S3-compatible bucket
// (s3blob, for several replicas), chosen by URL. The same code and the
// same tests run on both (docs/decisions.md "Kadu: files, results and
// webhook rotation").
//
// A bucket that can mint its own presigned URLs (S3) says so with
// Presigns; the local one cannot, and the product serves its own signed
// URLs over it instead.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob" // s3:// URLs
	"gocloud.dev/gcerrors"
)

// ErrNotFound is what reading or describing a key that holds nothing
// answers.
var ErrNotFound = errors.New("blob: not found")

// Bucket is where bytes are kept, by key.
type Bucket struct {
	b        *blob.Bucket
	presigns bool
	kind     string
}

// Attributes are what a stored object is.
type Attributes struct {
	Size        int64
	ContentType string
}

// Open opens the bucket a URL names: "" or file:///dir for the local
// filesystem (dir created if missing; "" is dataDir/blobs), s3://bucket?…
// for an S3-compatible bucket (region, endpoint, use_path_style,
// disable_https as gocloud.dev/blob/s3blob documents; credentials from
// the usual AWS environment).
func Open(ctx context.Context, rawURL, dataDir string) (*Bucket, error) {
	if rawURL == "" {
		if dataDir == "" {
			return nil, errors.New("blob: no bucket URL and no data directory")
		}
		return OpenDir(filepath.Join(dataDir, "blobs"))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob: bucket URL: %w", err)
	}
	switch u.Scheme {
	case "file":
		return OpenDir(u.Path)
	case "s3":
		b, err := blob.OpenBucket(ctx, rawURL)
		if err != nil {
			return nil, fmt.Errorf("blob: %w", err)
		}
		return &Bucket{b: b, presigns: true, kind: "s3"}, nil
	default:
		return nil, fmt.Errorf("blob: bucket URL must be file:///dir or s3://bucket, not %q", u.Scheme)
	}
}

// OpenDir opens a local directory as a bucket, creating it if missing.
// Uploads are written to a temporary file and renamed, so a key holds
// either nothing or all its bytes.
func OpenDir(dir string) (*Bucket, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataInSidecar})
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return &Bucket{b: b, kind: "file"}, nil
}

// Kind is "file" or "s3".
func (b *Bucket) Kind() string { return b.kind }

// Presigns reports whether the bucket mints its own presigned URLs
// (PresignPut, PresignGet).
func (b *Bucket) Presigns() bool { return b.presigns }

// Close releases the bucket.
func (b *Bucket) Close() error { return b.b.Close() }

// Put streams r to key, with contentType. At most limit bytes are read
// (limit < 0: no limit); a body that holds more is refused with
// ErrTooLarge after limit bytes and nothing is kept. It answers how many
// bytes were stored.
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, contentType string, limit int64) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.b.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType, DisableContentTypeDetection: true})
	if err != nil {
		return 0, fmt.Errorf("blob: %w", err)
	}
	src := r
	if limit >= 0 {
		src = io.LimitReader(r, limit+1)
	}
	n, err := io.Copy(w, src)
	if err == nil && limit >= 0 && n > limit {
		err = ErrTooLarge
	}
	if err != nil {
		// Cancelling before Close discards what was written.
		cancel()
		_ = w.Close()
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("blob: %w", err)
	}
	return n, nil
}

// ErrTooLarge is Put's answer to a body over its limit.
var ErrTooLarge = errors.New("blob: body over the size limit")

// Open reads key from its start; ErrNotFound if it holds nothing.
func (b *Bucket) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	return b.OpenRange(ctx, key, 0, -1)
}

// OpenRange reads length bytes of key from offset (length < 0: to the
// end).
func (b *Bucket) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	r, err := b.b.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, wrap(err)
	}
	return r, nil
}

// Attributes describes key; ErrNotFound if it holds nothing.
func (b *Bucket) Attributes(ctx context.Context, key string) (Attributes, error) {
	a, err := b.b.Attributes(ctx, key)
	if err != nil {
		return Attributes{}, wrap(err)
	}
	return Attributes{Size: a.Size, ContentType: a.ContentType}, nil
}

// Exists reports whether key holds bytes.
func (b *Bucket) Exists(ctx context.Context, key string) (bool, error) {
	ok, err := b.b.Exists(ctx, key)
	return ok, wrap(err)
}

// Delete removes key; a key that holds nothing is not an error (deleting
// is what a retried job does twice).
func (b *Bucket) Delete(ctx context.Context, key string) error {
	err := b.b.Delete(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return wrap(err)
}

// PresignPut is the bucket's own presigned PUT for key, valid for ttl,
// with the exact length and content type signed into it: the headers the
// client must send are returned with the URL. Only when Presigns.
func (b *Bucket) PresignPut(ctx context.Context, key, contentType string, length int64, ttl time.Duration) (string, http.Header, error) {
	if !b.presigns {
		return "", nil, errors.New("blob: this bucket does not presign URLs")
	}
	u, err := b.b.SignedURL(ctx, key, &blob.SignedURLOptions{Method: http.MethodPut, Expiry: ttl,
		BeforeSign: func(as func(any) bool) error {
			var in *s3.PutObjectInput
			if as(&in) {
				in.ContentType = aws.String(contentType)
				in.ContentLength = aws.Int64(length)
			}
			return nil
		}})
	if err != nil {
		return "", nil, fmt.Errorf("blob: %w", err)
	}
	h := http.Header{}
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", fmt.Sprint(length))
	return u, h, nil
}

// PresignGet is the bucket's own presigned GET for key, valid for ttl,
// answering with contentDisposition (the file's name). Only when
// Presigns.
func (b *Bucket) PresignGet(ctx context.Context, key, contentDisposition string, ttl time.Duration) (string, error) {
	if !b.presigns {
		return "", errors.New("blob: this bucket does not presign URLs")
	}
	u, err := b.b.SignedURL(ctx, key, &blob.SignedURLOptions{Method: http.MethodGet, Expiry: ttl,
		BeforeSign: func(as func(any) bool) error {
			var in *s3.GetObjectInput
			if as(&in) && contentDisposition != "" {
				in.ResponseContentDisposition = aws.String(contentDisposition)
			}
			return nil
		}})
	if err != nil {
		return "", fmt.Errorf("blob: %w", err)
	}
	return u, nil
}

func wrap(err error) error {
	if err == nil {
		return nil
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		return ErrNotFound
	}
	if strings.HasPrefix(err.Error(), "blob:") {
		return err
	}
	return fmt.Errorf("blob: %w", err)
}
