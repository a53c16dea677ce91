package kadu

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/blob"
	"github.com/kobana/kobana-mcp/platform/blob/blobtest"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// receivablesCSV is the seed's file: receivables to reconcile.
const receivablesCSV = "documento;vencimento;valor\n0001;2026-03-10;1500,00\n0002;2026-03-15;320,50\n"

// fileBuckets runs f on both engines with the local bucket and with an
// S3 bucket (gofakes3 in the test process).
func fileBuckets(t *testing.T, f func(t *testing.T, e *kaduEnv, b *blob.Bucket)) {
	for _, kind := range []string{"file", "s3"} {
		t.Run(kind, func(t *testing.T) {
			storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
				var b *blob.Bucket
				if kind == "file" {
					b = blobtest.Dir(t)
				} else {
					b = blobtest.S3(t).Bucket
				}
				cfg := testModelConfig
				cfg.Files = FilesConfig{bucket: b, URLSecret: "test files secret"}
				f(t, startKadu(t, db, cfg), b)
			})
		})
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// createSlot asks for an upload slot as user.
func (e *kaduEnv) createSlot(user accounts.User, body map[string]any) uploadSlotJSON {
	e.t.Helper()
	code, resp := e.Do(user, "POST", "/api/v1/files", body)
	return data[uploadSlotJSON](e.t, code, resp, 201)
}

func csvSlot(content string) map[string]any {
	return map[string]any{"filename": "recebiveis-marco.csv", "content_type": "text/csv", "byte_size": len(content)}
}

// put sends body to an upload slot as a real HTTP client would, with the
// headers it was told to send; length < 0 streams it chunked (no
// Content-Length).
func put(t *testing.T, method, u string, headers map[string]string, body io.Reader, length int64) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k != "Content-Length" {
			req.Header.Set(k, v)
		}
	}
	req.ContentLength = length
	if length < 0 {
		req.ContentLength = -1
		req.TransferEncoding = []string{"chunked"}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func upload(t *testing.T, slot uploadSlotJSON, content string) {
	t.Helper()
	if code, body := put(t, slot.UploadMethod, slot.UploadURL, slot.UploadHeaders, strings.NewReader(content), int64(len(content))); code != 200 {
		t.Fatalf("PUT: %d %s", code, body)
	}
}

func (e *kaduEnv) fileRow(id string) *records.File {
	e.t.Helper()
	f, err := records.FileByID(e.ctx, e.DB, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

func (e *kaduEnv) stored(b *blob.Bucket, id string) bool {
	e.t.Helper()
	ok, err := b.Exists(e.ctx, e.fileRow(id).StorageKey)
	if err != nil {
		e.t.Fatal(err)
	}
	return ok
}

// TestFilesUploadConfirmDownloadDelete is the file's whole life on both
// buckets: slot, PUT, confirm (ready, its SHA-256 computed), download by
// URL with the name in Content-Disposition, delete (bytes gone, then
// not_found everywhere); another organization sees none of it.
func TestFilesUploadConfirmDownloadDelete(t *testing.T) {
	t.Parallel()
	fileBuckets(t, func(t *testing.T, e *kaduEnv, b *blob.Bucket) {
		slot := e.createSlot(e.member, csvSlot(receivablesCSV))
		if slot.Status != records.FilePending || slot.UploadMethod != "PUT" || slot.UploadURL == "" || slot.UploadHeaders["Content-Type"] != "text/csv" ||
			slot.UploadExpiresAt == nil || slot.UploadExpiresAt.Sub(time.Now()) < 14*time.Minute || slot.Purpose != "input" {
			t.Fatalf("slot %+v", slot)
		}
		if b.Presigns() != strings.Contains(slot.UploadURL, "X-Amz-Signature") {
			t.Fatalf("upload URL %s on a %s bucket", slot.UploadURL, b.Kind())
		}
		path := "/api/v1/files/" + slot.ID
		e.wantError(e.member, "POST", path+"/confirm", nil, 409, "upload_missing")
		upload(t, slot, receivablesCSV)
		ready := data[records.FileJSON](t, 200, e.do(e.member, "POST", path+"/confirm", nil, 200), 200)
		if ready.Status != records.FileReady || ready.SHA256 == nil || *ready.SHA256 != sha(receivablesCSV) || ready.ByteSize != int64(len(receivablesCSV)) || ready.ConfirmedAt == nil {
			t.Fatalf("confirmed %+v", ready)
		}
		// Confirming again answers the file as it is.
		e.do(e.member, "POST", path+"/confirm", nil, 200)
		got := data[records.FileJSON](t, 200, e.do(e.viewer, "GET", path, nil, 200), 200)
		if got.Status != records.FileReady || got.Filename != "recebiveis-marco.csv" {
			t.Fatalf("get %+v", got)
		}

		var dl struct {
			URL       string    `json:"url"`
			ExpiresAt time.Time `json:"expires_at"`
		}
		dl = data[struct {
			URL       string    `json:"url"`
			ExpiresAt time.Time `json:"expires_at"`
		}](t, 200, e.do(e.viewer, "POST", path+"/download-url", nil, 200), 200)
		if d := time.Until(dl.ExpiresAt); d > 5*time.Minute+time.Second || d < 4*time.Minute {
			t.Fatalf("download URL valid for %s", d)
		}
		resp, err := http.Get(dl.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != receivablesCSV || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment; filename=") ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), "recebiveis-marco.csv") {
			t.Fatalf("download: %d %q %v", resp.StatusCode, body, resp.Header)
		}

		// Another organization: not_found on every route.
		for _, r := range []struct{ method, path string }{{"GET", path}, {"POST", path + "/confirm"}, {"POST", path + "/download-url"}, {"DELETE", path}} {
			e.wantError(e.Other, r.method, r.path, nil, 404, "not_found")
		}

		// Delete: the bytes at once, the row kept as deleted, then not_found.
		gone := data[records.FileJSON](t, 200, e.do(e.member, "DELETE", path, nil, 200), 200)
		if gone.Status != records.FileDeleted || e.stored(b, slot.ID) {
			t.Fatalf("deleted %+v, bytes kept: %v", gone, e.stored(b, slot.ID))
		}
		for _, r := range []struct{ method, path string }{{"GET", path}, {"POST", path + "/confirm"}, {"POST", path + "/download-url"}, {"DELETE", path}} {
			e.wantError(e.member, r.method, r.path, nil, 404, "not_found")
		}
		if resp, err := http.Get(dl.URL); err != nil || resp.StatusCode != 404 {
			t.Fatalf("a download URL minted before the delete: %v %v", resp.StatusCode, err)
		}
		if n := e.count(`SELECT COUNT(*) FROM kadu_files WHERE id = ? AND status = 'deleted' AND deleted_at IS NOT NULL`, slot.ID); n != 1 {
			t.Fatal("the deleted row is not kept")
		}
	})
}

// TestFilesConfirmRejects: what the confirmation refuses on both buckets
// — a size other than declared, a wrong SHA-256, content that is not the
// declared type, a type off the allow-list — each rejected with the
// reason and its bytes deleted.
func TestFilesConfirmRejects(t *testing.T) {
	t.Parallel()
	fileBuckets(t, func(t *testing.T, e *kaduEnv, b *blob.Bucket) {
		reject := func(name string, slotBody map[string]any, content, reason string) {
			t.Helper()
			slot := e.createSlot(e.member, slotBody)
			upload(t, slot, content)
			resp := e.wantError(e.member, "POST", "/api/v1/files/"+slot.ID+"/confirm", nil, 422, "file_rejected")
			if !strings.Contains(resp, reason) {
				t.Fatalf("%s: %s, want %q", name, resp, reason)
			}
			f := e.fileRow(slot.ID)
			if f.Status != records.FileRejected || !strings.Contains(deref(f.RejectionReason), reason) || e.stored(b, slot.ID) {
				t.Fatalf("%s: %+v, bytes kept %v", name, f, e.stored(b, slot.ID))
			}
			e.wantError(e.member, "POST", "/api/v1/files/"+slot.ID+"/confirm", nil, 409, "file_rejected")
			e.wantError(e.member, "POST", "/api/v1/files/"+slot.ID+"/download-url", nil, 409, "file_not_ready")
		}
		short := csvSlot(receivablesCSV + "0003;2026-03-20;10,00\n")
		reject("size", short, receivablesCSV, "bytes arrived, but byte_size declared")
		hashed := csvSlot(receivablesCSV)
		hashed["sha256"] = sha("something else")
		reject("hash", hashed, receivablesCSV, "SHA-256")
		pdfSlot := map[string]any{"filename": "boleto.pdf", "content_type": "application/pdf", "byte_size": len(receivablesCSV)}
		reject("type", pdfSlot, receivablesCSV, "the content is not application/pdf")
		png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 24)
		reject("png as csv", csvSlot(png), png, "the content is not text/csv")

		// Refused when the slot is asked for: off the allow-list, too
		// large, a bad hash, another purpose.
		resp := e.wantError(e.member, "POST", "/api/v1/files", map[string]any{"filename": "x.exe", "content_type": "application/x-msdownload", "byte_size": 10,
			"sha256": "zz"}, 422, "validation_failed")
		for _, f := range []string{"content_type", "sha256"} {
			if !strings.Contains(resp, `"field":"`+f+`"`) {
				t.Fatalf("no detail for %s: %s", f, resp)
			}
		}
		e.wantError(e.member, "POST", "/api/v1/files", map[string]any{"filename": "out.csv", "content_type": "text/csv", "byte_size": 3, "purpose": "output"}, 422, "validation_failed")
		e.wantError(e.member, "POST", "/api/v1/files", map[string]any{"filename": "big.csv", "content_type": "text/csv", "byte_size": 25<<20 + 1}, 422, "validation_failed")
		// A viewer cannot upload.
		e.wantError(e.viewer, "POST", "/api/v1/files", csvSlot("a"), 403, "forbidden")
	})
}

// TestFilesLocalUploadURLRefusals: the product's own signed URL refuses
// the wrong method, a tampered or another file's signature, an expired
// URL, a body over the declared size (by Content-Length and while it
// streams chunked), a second upload and an upload after confirmation —
// each with a clear status, nothing stored.
func TestFilesLocalUploadURLRefusals(t *testing.T) {
	t.Parallel()
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		b := blobtest.Dir(t)
		cfg := testModelConfig
		cfg.Files = FilesConfig{bucket: b, URLSecret: "test files secret"}
		e := startKadu(t, db, cfg)
		slot := e.createSlot(e.member, csvSlot(receivablesCSV))
		other := e.createSlot(e.member, csvSlot(receivablesCSV))
		refuse := func(what, method, u string, body io.Reader, length int64, status int, code string) {
			t.Helper()
			got, resp := put(t, method, u, slot.UploadHeaders, body, length)
			if got != status || !strings.Contains(resp, `"code":"`+code+`"`) {
				t.Fatalf("%s: %d %s, want %d %s", what, got, resp, status, code)
			}
			if e.stored(b, slot.ID) {
				t.Fatalf("%s: bytes were stored", what)
			}
		}
		body := func() io.Reader { return strings.NewReader(receivablesCSV) }
		n := int64(len(receivablesCSV))
		refuse("GET", "GET", slot.UploadURL, nil, 0, 405, "method_not_allowed")
		refuse("POST", "POST", slot.UploadURL, body(), n, 405, "method_not_allowed")
		u, _ := url.Parse(slot.UploadURL)
		q := u.Query()
		q.Set("max", "999999")
		u.RawQuery = q.Encode()
		refuse("tampered size limit", "PUT", u.String(), body(), n, 403, "invalid_signature")
		q = u.Query()
		q.Set("max", "1")
		q.Set("signature", q.Get("signature")[:10]+"x"+q.Get("signature")[11:])
		u.RawQuery = q.Encode()
		refuse("tampered signature", "PUT", u.String(), body(), n, 403, "invalid_signature")
		theirs, _ := url.Parse(other.UploadURL)
		theirs.Path = "/files/upload/" + slot.ID
		refuse("another file's URL", "PUT", theirs.String(), body(), n, 403, "invalid_signature")
		expired := e.svc.files.signedURL("PUT", slot.ID, n, time.Now().Add(-time.Second))
		refuse("expired", "PUT", e.URL+expired, body(), n, 403, "url_expired")
		refuse("over the size by Content-Length", "PUT", slot.UploadURL, strings.NewReader(receivablesCSV+"x"), n+1, 413, "too_large")
		refuse("over the size while streaming", "PUT", slot.UploadURL, io.MultiReader(body(), strings.NewReader(strings.Repeat("x", 1<<20))), -1, 413, "too_large")
		if f := e.fileRow(slot.ID); f.UploadState != "none" || f.Status != records.FilePending {
			t.Fatalf("after refusals: %+v", f)
		}
		// A download URL's signature does not open the upload, nor the
		// other way round.
		dl := e.svc.files.signedURL("GET", slot.ID, 0, time.Now().Add(time.Minute))
		refuse("a download signature", "PUT", e.URL+strings.Replace(dl, "/files/download/", "/files/upload/", 1)+"&max="+u.Query().Get("max"), body(), n, 403, "invalid_signature")

		// The upload: once.
		upload(t, slot, receivablesCSV)
		got, resp := put(t, "PUT", slot.UploadURL, slot.UploadHeaders, body(), n)
		if got != 409 || !strings.Contains(resp, "already_uploaded") {
			t.Fatalf("second upload: %d %s", got, resp)
		}
		e.do(e.member, "POST", "/api/v1/files/"+slot.ID+"/confirm", nil, 200)
		got, resp = put(t, "PUT", slot.UploadURL, slot.UploadHeaders, body(), n)
		if got != 409 || !strings.Contains(resp, "upload_closed") {
			t.Fatalf("upload after confirmation: %d %s", got, resp)
		}
		r, _ := b.Open(e.ctx, e.fileRow(slot.ID).StorageKey)
		kept, _ := io.ReadAll(r)
		r.Close()
		if !bytes.Equal(kept, []byte(receivablesCSV)) {
			t.Fatalf("stored %q", kept)
		}
		// The upload URL does not download.
		if resp, err := http.Get(slot.UploadURL); err != nil || resp.StatusCode != 405 {
			t.Fatalf("GET on the upload URL: %v", err)
		}
	})
}

// TestFilesExpire: a slot not confirmed in time ends expired and the
// sweep deletes the bytes that arrived; confirming it then is refused.
func TestFilesExpire(t *testing.T) {
	t.Parallel()
	fileBuckets(t, func(t *testing.T, e *kaduEnv, b *blob.Bucket) {
		slot := e.createSlot(e.member, csvSlot(receivablesCSV))
		upload(t, slot, receivablesCSV)
		keep := e.createSlot(e.member, csvSlot(receivablesCSV))
		if n, err := e.svc.expireFiles(e.ctx, time.Now()); err != nil || n != 0 {
			t.Fatalf("before their time: %d %v", n, err)
		}
		if _, err := e.DB.Exec(e.ctx, `UPDATE kadu_files SET upload_expires_at = ? WHERE id = ?`, store.Now().Add(-time.Minute), slot.ID); err != nil {
			t.Fatal(err)
		}
		if n, err := e.svc.expireFiles(e.ctx, store.Now()); err != nil || n != 1 {
			t.Fatalf("sweep: %d %v", n, err)
		}
		if f := e.fileRow(slot.ID); f.Status != records.FileExpired || e.stored(b, slot.ID) {
			t.Fatalf("expired %+v, bytes kept %v", f, e.stored(b, slot.ID))
		}
		if f := e.fileRow(keep.ID); f.Status != records.FilePending {
			t.Fatalf("a slot still in time: %+v", f)
		}
		e.wantError(e.member, "POST", "/api/v1/files/"+slot.ID+"/confirm", nil, 409, "upload_expired")
	})
}
