package kadu

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/blob"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// The local bucket's own upload and download URLs, served by the product
// at /files/upload/{id} and /files/download/{id}. They carry no token:
// the signature (HMAC over method, file id, size limit and expiry,
// fileStore.sign) is the authorization, so a URL works only for its file,
// its method and its time.

// fileRoutes adds the signed URLs to the product's mux.
func (s *service) fileRoutes(mux *http.ServeMux) {
	mux.HandleFunc("/files/upload/{id}", s.serveUpload)
	mux.HandleFunc("/files/download/{id}", s.serveDownload)
}

func transferError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(rest.DefaultErrors(&rest.Error{Status: status, Code: code, Message: msg}))
}

// urlRefusal answers a signed URL that does not hold.
func urlRefusal(w http.ResponseWriter, problem string) {
	if problem == "expired" {
		transferError(w, http.StatusForbidden, "url_expired", "this URL has expired: ask for a new one")
		return
	}
	transferError(w, http.StatusForbidden, "invalid_signature", "this URL's signature does not match: use it exactly as it was given, for the method and file it was made for")
}

// serveUpload takes one PUT of a pending file's bytes, streamed to the
// bucket and cut at the signed size limit: nothing is kept of a body
// that is refused.
func (s *service) serveUpload(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if r.Method != http.MethodPut {
		w.Header().Set("Allow", http.MethodPut)
		transferError(w, http.StatusMethodNotAllowed, "method_not_allowed", "an upload URL takes PUT")
		return
	}
	fs, err := s.fileStoreReady()
	if err != nil {
		transferError(w, http.StatusServiceUnavailable, "files_unavailable", err.Error())
		return
	}
	max, problem := fs.verify(http.MethodPut, id, r.URL.Query(), s.clock())
	if problem != "" {
		urlRefusal(w, problem)
		return
	}
	if r.ContentLength > max {
		transferError(w, http.StatusRequestEntityTooLarge, "too_large", "the body is larger than the file's declared byte_size ("+strconv.FormatInt(max, 10)+" bytes); nothing was stored")
		return
	}
	ctx := r.Context()
	f, err := s.claimUpload(ctx, id)
	if err != nil {
		var re *rest.Error
		if errors.As(err, &re) {
			transferError(w, re.Status, re.Code, re.Message)
		} else {
			transferError(w, http.StatusInternalServerError, "internal", "the upload could not start")
		}
		return
	}
	n, err := fs.bucket.Put(ctx, f.StorageKey, r.Body, f.ContentType, max)
	if err != nil {
		// Back to none: the slot takes a complete body later.
		_ = records.ReleaseUpload(context.WithoutCancel(ctx), s.db, f.ID, s.clock())
		if errors.Is(err, blob.ErrTooLarge) {
			transferError(w, http.StatusRequestEntityTooLarge, "too_large", "the body grew past the file's declared byte_size ("+strconv.FormatInt(max, 10)+" bytes); nothing was stored")
			return
		}
		transferError(w, http.StatusBadRequest, "upload_failed", "the body could not be read to its end; nothing was stored")
		return
	}
	if err := records.SetUploaded(ctx, s.db, f.ID, s.clock()); err != nil {
		transferError(w, http.StatusInternalServerError, "internal", "the upload could not be recorded")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"id": f.ID, "received_bytes": n, "status": records.FilePending,
		"next": "confirm the upload: POST /api/v1/files/" + f.ID + "/confirm (kadu_files_confirm)"}})
}

// claimUpload marks a pending file as receiving its bytes, once: a
// second PUT, or one after the confirmation, is refused.
func (s *service) claimUpload(ctx context.Context, id string) (*records.File, error) {
	claimed, err := records.ClaimUploadState(ctx, s.db, id, s.clock())
	if err != nil {
		return nil, err
	}
	f, err := records.FileByID(ctx, s.db, id)
	switch {
	case errors.Is(err, store.ErrNotFound) || (err == nil && f.Status == records.FileDeleted):
		return nil, refusal(http.StatusNotFound, "not_found", "no such file")
	case err != nil:
		return nil, err
	case claimed:
		return f, nil
	case f.Status != records.FilePending:
		return nil, refusal(http.StatusConflict, "upload_closed", "the file is "+f.Status+": its upload URL no longer takes bytes")
	case f.UploadState == "uploaded":
		return nil, refusal(http.StatusConflict, "already_uploaded", "the file's bytes were already uploaded: confirm it (kadu_files_confirm), or create a new slot")
	}
	return nil, refusal(http.StatusConflict, "upload_in_progress", "another upload of this file is streaming")
}

// serveDownload streams a ready file with its name and type.
func (s *service) serveDownload(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		transferError(w, http.StatusMethodNotAllowed, "method_not_allowed", "a download URL takes GET")
		return
	}
	fs, err := s.fileStoreReady()
	if err != nil {
		transferError(w, http.StatusServiceUnavailable, "files_unavailable", err.Error())
		return
	}
	if _, problem := fs.verify(http.MethodGet, id, r.URL.Query(), s.clock()); problem != "" {
		urlRefusal(w, problem)
		return
	}
	f, err := records.FileByID(r.Context(), s.db, id)
	if err != nil || f.Status == records.FileDeleted {
		transferError(w, http.StatusNotFound, "not_found", "no such file")
		return
	}
	if f.Status != records.FileReady {
		transferError(w, http.StatusConflict, "file_not_ready", "the file is "+f.Status)
		return
	}
	body, err := fs.bucket.Open(r.Context(), f.StorageKey)
	if err != nil {
		transferError(w, http.StatusNotFound, "not_found", "the file's bytes are gone")
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("Content-Length", strconv.FormatInt(f.ByteSize, 10))
	h.Set("Content-Disposition", contentDisposition(f.Filename))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-store")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = io.Copy(w, body)
}
