package kadu

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/safename"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Files: bytes never travel through the API or MCP. A person asks for an
// upload slot (kadu_files_create), PUTs the content to the URL it
// answers, and confirms it (kadu_files_confirm), which checks what
// arrived; downloads are short-lived URLs (kadu_files_download).
// docs/decisions.md "Kadu: files, results and webhook rotation".
var (
	filesRead  = mcp.Requirement{Scopes: []string{"kadu.files"}, Permission: identity.PermRead}
	filesWrite = mcp.Requirement{Scopes: []string{"kadu.files"}, Permission: identity.PermWrite}
)

// uploadSlotJSON is kadu_files_create's answer: the file and where to PUT
// its bytes.
type uploadSlotJSON struct {
	records.FileJSON
	UploadURL     string            `json:"upload_url"`
	UploadMethod  string            `json:"upload_method"`
	UploadHeaders map[string]string `json:"upload_headers"`
}

type createFileIn struct {
	Filename    string `json:"filename" minLength:"1" maxLength:"255" jsonschema:"The file's name (shown on downloads)."`
	ContentType string `json:"content_type" minLength:"1" maxLength:"200" jsonschema:"What the file is: application/pdf, text/csv, application/x-ofx, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, application/xml, image/png, image/jpeg or text/plain."`
	ByteSize    int64  `json:"byte_size" minimum:"1" jsonschema:"The exact size in bytes; the upload may not exceed it (at most 25 MB by default)."`
	SHA256      string `json:"sha256,omitempty" maxLength:"64" jsonschema:"The SHA-256 of the content, hex; the confirmation then checks it."`
	Purpose     string `json:"purpose,omitempty" enum:"input" jsonschema:"input (the only one a person uploads): a file for a run's input_file_ids."`
}

type fileRefIn struct {
	ID string `json:"file_id" in:"path" jsonschema:"The file's id."`
}

type executionFilesIn struct {
	ID string `json:"execution_id" in:"path" jsonschema:"The execution's id."`
}

var sha256Re = regexp.MustCompile(`^[0-9a-f]{64}$`)

// filesAPI holds the handlers of the file operations.
type filesAPI struct{ *service }

func registerFiles(api *rest.API, s *service) {
	h := &filesAPI{s}
	rest.Handle(api, rest.Operation{
		ID: "kadu_files_create", Method: "POST", Path: "/files", Tags: []string{"files"},
		Title:    "Create an upload slot",
		Summary:  "Creates a file slot (pending_upload) and answers where to PUT its bytes: upload_url, upload_method PUT, upload_headers to send, upload_expires_at. Then call kadu_files_confirm. Bytes never travel through this API or MCP.",
		Requires: filesWrite, Annotations: restkit.Write(false),
	}, h.create)
	rest.Handle(api, rest.Operation{
		ID: "kadu_files_confirm", Method: "POST", Path: "/files/{file_id}/confirm", Tags: []string{"files"},
		Title:    "Confirm an upload",
		Summary:  "Checks what was uploaded: the size, the SHA-256 when one was declared, the content against the declared type (PDF, CSV, OFX, XLSX, XML, PNG, JPEG, plain text) and the size limit. ready when it passes; otherwise rejected with the reason, and the bytes are deleted. A ready file answers as it is.",
		Requires: filesWrite, Annotations: restkit.Write(true),
	}, h.confirm)
	rest.Handle(api, rest.Operation{
		ID: "kadu_files_get", Method: "GET", Path: "/files/{file_id}", Tags: []string{"files"},
		Title: "Get a file", Summary: "Gets a file's metadata (name, type, size, SHA-256, purpose, status, the execution that wrote it); never its bytes: use kadu_files_download.",
		Requires: filesRead, Annotations: restkit.ReadOnly(),
	}, h.get)
	rest.Handle(api, rest.Operation{
		ID: "kadu_files_download", Method: "POST", Path: "/files/{file_id}/download-url", Tags: []string{"files"},
		Title: "Get a download URL", Summary: "Answers a URL that downloads a ready file for the next five minutes (url, expires_at), with the file's name in Content-Disposition.",
		Requires: filesRead, Annotations: restkit.Write(true),
	}, h.download)
	rest.Handle(api, rest.Operation{
		ID: "kadu_executions_files", Method: "GET", Path: "/executions/{execution_id}/files", Tags: []string{"files"},
		Title: "List an execution's output files", Summary: "Lists the ready output files an execution wrote (metadata, by name); download each with kadu_files_download.",
		Requires: filesRead, Annotations: restkit.ReadOnly(),
	}, h.executionFiles)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "kadu_files_delete", Method: "DELETE", Path: "/files/{file_id}", Tags: []string{"files"},
		Title: "Delete a file", Summary: "Deletes a file's bytes at once and marks it deleted: from then on every route answers not_found, while executions that used it still name it.",
		Description: "Destructive: the bytes cannot be recovered.",
		Requires:    filesWrite, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, h.describeDelete, h.delete)
}

// create answers kadu_files_create.
func (h *filesAPI) create(ctx context.Context, in *createFileIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	fs, err := h.fileStoreReady()
	if err != nil {
		return nil, err
	}
	f, details := h.newUploadSlot(sc.OrgID, sc.Identity.UserID, in)
	if len(details) > 0 {
		return nil, rest.Validation("the file is invalid", details...)
	}
	slot := uploadSlotJSON{UploadMethod: http.MethodPut}
	if fs.bucket.Presigns() {
		u, h, err := fs.bucket.PresignPut(ctx, f.StorageKey, f.ContentType, f.ByteSize, uploadTTL)
		if err != nil {
			return nil, err
		}
		slot.UploadURL = u
		slot.UploadHeaders = map[string]string{"Content-Type": h.Get("Content-Type"), "Content-Length": h.Get("Content-Length")}
	} else {
		slot.UploadURL = fs.signedURL(http.MethodPut, f.ID, f.ByteSize, *f.UploadExpiresAt)
		slot.UploadHeaders = map[string]string{"Content-Type": f.ContentType}
	}
	if err := records.InsertFile(ctx, h.db, f); err != nil {
		return nil, err
	}
	slot.FileJSON = records.ToFileJSON(f)
	return rest.Created(map[string]any{"data": slot}), nil
}

// confirm answers kadu_files_confirm.
func (h *filesAPI) confirm(ctx context.Context, in *fileRefIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	f, err := h.confirmFile(ctx, sc.OrgID, in.ID)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": records.ToFileJSON(f)}), nil
}

// get answers kadu_files_get.
func (h *filesAPI) get(ctx context.Context, in *fileRefIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, h.tenancy, "file", func(sc restkit.Tenant) (*records.File, error) {
		return records.GetFile(ctx, h.db, sc.OrgID, in.ID)
	}, records.ToFileJSON)
}

// download answers kadu_files_download.
func (h *filesAPI) download(ctx context.Context, in *fileRefIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	f, err := records.GetFile(ctx, h.db, sc.OrgID, in.ID)
	if err != nil {
		return nil, fileErr(err)
	}
	u, exp, err := h.downloadURL(ctx, f)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": map[string]any{"url": u, "method": http.MethodGet, "expires_at": exp, "file": records.ToFileJSON(f)}}), nil
}

// executionFiles answers kadu_executions_files.
func (h *filesAPI) executionFiles(ctx context.Context, in *executionFilesIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := records.GetExecution(ctx, h.db, sc.OrgID, in.ID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, rest.NotFound("execution")
		}
		return nil, err
	}
	files, err := records.ExecutionOutputs(ctx, h.db, sc.OrgID, in.ID)
	if err != nil {
		return nil, err
	}
	out := make([]records.FileJSON, len(files))
	for i := range files {
		out[i] = records.ToFileJSON(&files[i])
	}
	return rest.OK(map[string]any{"data": out}), nil
}

// describeDelete is the confirmation kadu_files_delete asks for.
func (h *filesAPI) describeDelete(ctx context.Context, in *fileRefIn) (string, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return "", err
	}
	f, err := records.GetFile(ctx, h.db, sc.OrgID, in.ID)
	if err != nil {
		return "", fileErr(err)
	}
	return fmt.Sprintf("Delete file '%s' (%d bytes)? Its content cannot be recovered.", f.Filename, f.ByteSize), nil
}

// delete answers kadu_files_delete.
func (h *filesAPI) delete(ctx context.Context, in *fileRefIn) (*rest.Response, error) {
	sc, err := h.tenancy(ctx)
	if err != nil {
		return nil, err
	}
	fs, err := h.fileStoreReady()
	if err != nil {
		return nil, err
	}
	var f *records.File
	err = h.nonces.WithTx(ctx, func(tx *store.Tx) error {
		if f, err = records.GetFile(ctx, tx, sc.OrgID, in.ID); err != nil {
			return err
		}
		return records.SetFileStatus(ctx, tx, f, f.Status, records.FileDeleted, f.RejectionReason, h.clock())
	})
	if err != nil {
		return nil, fileErr(err)
	}
	// The row is deleted first, so no URL serves the bytes any more;
	// then the bytes go. A failure here leaves orphan bytes the expiry
	// sweep does not see: log it.
	if err := fs.bucket.Delete(ctx, f.StorageKey); err != nil && h.log != nil {
		h.log.Error("kadu: deleting a file's bytes", "file", f.ID, "error", err)
	}
	return rest.OK(map[string]any{"data": records.ToFileJSON(f)}), nil
}

// newUploadSlot checks a create request and builds its pending row.
func (s *service) newUploadSlot(orgID, userID string, in *createFileIn) (*records.File, []rest.FieldError) {
	var details []rest.FieldError
	// Refused, not cleaned (platform/safename.File): a name with a bidi
	// override, a control character, a path separator or only dots.
	name, err := safename.File(in.Filename)
	if err != nil {
		details = append(details, rest.FieldError{Field: "filename", Message: err.Error()})
	}
	ct := records.BaseType(in.ContentType)
	if _, ok := allowedTypes[ct]; !ok {
		details = append(details, rest.FieldError{Field: "content_type", Message: "must be one of " + strings.Join(allowedTypeNames(), ", ")})
	}
	if in.ByteSize < 1 || in.ByteSize > s.files.maxBytes {
		details = append(details, rest.FieldError{Field: "byte_size", Message: fmt.Sprintf("must be between 1 and %d bytes", s.files.maxBytes)})
	}
	var sum *string
	if in.SHA256 != "" {
		v := strings.ToLower(in.SHA256)
		if !sha256Re.MatchString(v) {
			details = append(details, rest.FieldError{Field: "sha256", Message: "must be 64 hex digits"})
		}
		sum = &v
	}
	if in.Purpose != "" && in.Purpose != "input" {
		details = append(details, rest.FieldError{Field: "purpose", Message: "must be input: output files are written by executions"})
	}
	now := s.clock()
	exp := now.Add(uploadTTL).Truncate(time.Second)
	id := store.NewID()
	var by *string
	if userID != "" {
		by = &userID
	}
	return &records.File{ID: id, OrganizationID: orgID, Purpose: "input", Filename: name, ContentType: ct, ByteSize: in.ByteSize,
		SHA256: sum, Status: records.FilePending, UploadState: "none", StorageKey: records.FileKey(orgID, id), CreatedBy: by,
		UploadExpiresAt: &exp, CreatedAt: now, UpdatedAt: now}, details
}
