package kadu

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/blob"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// allowedTypes are the content types Kadu accepts, each with how its
// first bytes are recognized: what a financial agent reads (statements,
// spreadsheets, boletos and invoices, NF-e XML, receipts) and nothing
// executable.
var allowedTypes = map[string]func(head []byte) bool{
	"application/pdf": func(h []byte) bool { return bytes.HasPrefix(h, []byte("%PDF-")) },
	"text/csv":        isText,
	"text/plain":      isText,
	"application/x-ofx": func(h []byte) bool {
		return isText(h) && (bytes.Contains(h, []byte("OFXHEADER")) || bytes.Contains(h, []byte("<OFX>")) || bytes.Contains(h, []byte("<?OFX")))
	},
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": func(h []byte) bool {
		return bytes.HasPrefix(h, []byte("PK\x03\x04"))
	},
	"application/xml": isXML,
	"text/xml":        isXML,
	"image/png":       func(h []byte) bool { return bytes.HasPrefix(h, []byte("\x89PNG\r\n\x1a\n")) },
	"image/jpeg":      func(h []byte) bool { return bytes.HasPrefix(h, []byte{0xff, 0xd8, 0xff}) },
}

func allowedTypeNames() []string {
	var out []string
	for k := range allowedTypes {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// sniffBytes is how much of the start is read to recognize the type.
const sniffBytes = 4096

// isText: no NUL byte, and valid UTF-8 or single-byte text (Brazilian
// banks still export ISO-8859-1 CSVs): http.DetectContentType's text.
func isText(h []byte) bool {
	if bytes.IndexByte(h, 0) >= 0 {
		return false
	}
	if utf8.Valid(trimPartialRune(h)) {
		return true
	}
	ct := http.DetectContentType(h)
	return len(ct) >= 5 && ct[:5] == "text/"
}

// trimPartialRune drops a UTF-8 sequence cut at the end of the window.
func trimPartialRune(h []byte) []byte {
	for i := 0; i < 3 && len(h) > 0; i++ {
		if r, _ := utf8.DecodeLastRune(h); r != utf8.RuneError {
			return h
		}
		h = h[:len(h)-1]
	}
	return h
}

func isXML(h []byte) bool {
	h = bytes.TrimPrefix(h, []byte("\xef\xbb\xbf"))
	return isText(h) && bytes.HasPrefix(bytes.TrimLeft(h, " \t\r\n"), []byte("<"))
}

// inspection is what reading the stored bytes found.
type inspection struct {
	size int64
	sum  string
	head []byte
}

// inspect streams the object once: its size, its SHA-256 and its first
// bytes, in constant memory.
func inspect(ctx context.Context, b *blob.Bucket, key string) (inspection, error) {
	r, err := b.Open(ctx, key)
	if err != nil {
		return inspection{}, err
	}
	defer r.Close()
	h := sha256.New()
	head := &headBuffer{max: sniffBytes}
	n, err := io.Copy(io.MultiWriter(h, head), r)
	if err != nil {
		return inspection{}, err
	}
	return inspection{size: n, sum: hex.EncodeToString(h.Sum(nil)), head: head.b}, nil
}

type headBuffer struct {
	b   []byte
	max int
}

func (w *headBuffer) Write(p []byte) (int, error) {
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// verdict is why f's bytes are refused, or "".
func (s *service) verdict(f *records.File, got inspection) string {
	switch {
	case got.size > s.files.maxBytes:
		return fmt.Sprintf("the file has %d bytes, more than the %d allowed", got.size, s.files.maxBytes)
	case got.size != f.ByteSize:
		return fmt.Sprintf("%d bytes arrived, but byte_size declared %d", got.size, f.ByteSize)
	case f.SHA256 != nil && *f.SHA256 != got.sum:
		return fmt.Sprintf("the content's SHA-256 is %s, not the declared %s", got.sum, *f.SHA256)
	}
	if check, ok := allowedTypes[f.ContentType]; !ok || !check(got.head) {
		return fmt.Sprintf("the content is not %s (it looks like %s)", f.ContentType, http.DetectContentType(got.head))
	}
	return ""
}

// confirmFile checks a pending file's bytes and makes it ready or
// rejected (deleting the bytes). The bytes are read outside any
// transaction; the status is then set only if the file is still pending.
func (s *service) confirmFile(ctx context.Context, orgID, id string) (*records.File, error) {
	fs, err := s.fileStoreReady()
	if err != nil {
		return nil, err
	}
	f, err := records.GetFile(ctx, s.db, orgID, id)
	if err != nil {
		return nil, fileErr(err)
	}
	switch f.Status {
	case records.FileReady:
		return f, nil
	case records.FileRejected:
		return nil, refusal(http.StatusConflict, "file_rejected", "the file was rejected: "+restkit.Deref(f.RejectionReason)+"; create a new slot to upload it again")
	case records.FileExpired:
		return nil, refusal(http.StatusConflict, "upload_expired", "the upload slot expired before it was confirmed; create a new one")
	}
	now := s.clock()
	if f.UploadExpiresAt != nil && !now.Before(*f.UploadExpiresAt) {
		if err := s.expireFile(ctx, f); err != nil {
			return nil, err
		}
		return nil, refusal(http.StatusConflict, "upload_expired", "the upload slot expired before it was confirmed; create a new one")
	}
	if f.UploadState == "uploading" {
		return nil, refusal(http.StatusConflict, "upload_in_progress", "the upload is still streaming: confirm once the PUT has answered")
	}
	got, err := inspect(ctx, fs.bucket, f.StorageKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, refusal(http.StatusConflict, "upload_missing", "nothing was uploaded yet: PUT the content to upload_url first")
	}
	if err != nil {
		return nil, err
	}
	reason := s.verdict(f, got)
	to := records.FileReady
	var why *string
	if reason != "" {
		to, why = records.FileRejected, &reason
	} else if f.SHA256 == nil {
		f.SHA256 = &got.sum
	}
	err = s.db.WithTx(ctx, func(tx *store.Tx) error {
		if to == records.FileReady {
			if err := records.SetFileSum(ctx, tx, f.ID, got.sum); err != nil {
				return err
			}
		}
		return records.SetFileStatus(ctx, tx, f, records.FilePending, to, why, s.clock())
	})
	if errors.Is(err, store.ErrNotFound) {
		return records.GetFile(ctx, s.db, orgID, id) // another confirmation won
	}
	if err != nil {
		return nil, err
	}
	if to == records.FileRejected {
		if err := fs.bucket.Delete(ctx, f.StorageKey); err != nil {
			return nil, err
		}
		return nil, refusal(http.StatusUnprocessableEntity, "file_rejected", "the file was rejected and its bytes deleted: "+reason)
	}
	return f, nil
}

// expireFile ends a pending slot: its bytes (if any) deleted, the row
// expired.
func (s *service) expireFile(ctx context.Context, f *records.File) error {
	if err := s.files.bucket.Delete(ctx, f.StorageKey); err != nil {
		return err
	}
	err := records.SetFileStatus(ctx, s.db, f, records.FilePending, records.FileExpired, nil, s.clock())
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
