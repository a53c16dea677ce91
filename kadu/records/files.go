package records

import (
	"mime"
	"strings"
	"time"
)

// Files: the kadu_files row, its statuses, where its bytes are kept and
// how the API (and an execution) shows it.

// File statuses.
const (
	FilePending  = "pending_upload"
	FileReady    = "ready"
	FileRejected = "rejected"
	FileExpired  = "expired"
	FileDeleted  = "deleted"
)

// File is a kadu_files row.
type File struct {
	ID              string     `db:"id"`
	OrganizationID  string     `db:"organization_id"`
	Purpose         string     `db:"purpose"`
	Filename        string     `db:"filename"`
	ContentType     string     `db:"content_type"`
	ByteSize        int64      `db:"byte_size"`
	SHA256          *string    `db:"sha256"`
	Status          string     `db:"status"`
	RejectionReason *string    `db:"rejection_reason"`
	UploadState     string     `db:"upload_state"`
	StorageKey      string     `db:"storage_key"`
	ExecutionID     *string    `db:"execution_id"`
	CreatedBy       *string    `db:"created_by"`
	UploadExpiresAt *time.Time `db:"upload_expires_at"`
	ConfirmedAt     *time.Time `db:"confirmed_at"`
	CreatedAt       time.Time  `db:"created_at"`
	UpdatedAt       time.Time  `db:"updated_at"`
	DeletedAt       *time.Time `db:"deleted_at"`
}

// FileKey is where a file's bytes live in the bucket.
func FileKey(orgID, id string) string { return "kadu/" + orgID + "/" + id }

// BaseType is a content type without its parameters, lower-case.
func BaseType(ct string) string {
	t, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return t
}

// FileJSON is a file as the API shows it (never its bytes), and as an
// execution sees its input and output files.
type FileJSON struct {
	ID              string     `json:"id"`
	Filename        string     `json:"filename"`
	ContentType     string     `json:"content_type"`
	ByteSize        int64      `json:"byte_size"`
	SHA256          *string    `json:"sha256"`
	Purpose         string     `json:"purpose"`
	Status          string     `json:"status"`
	RejectionReason *string    `json:"rejection_reason"`
	ExecutionID     *string    `json:"execution_id"`
	UploadExpiresAt *time.Time `json:"upload_expires_at"`
	ConfirmedAt     *time.Time `json:"confirmed_at"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
}

// ToFileJSON is f as the API shows it.
func ToFileJSON(f *File) FileJSON {
	return FileJSON{ID: f.ID, Filename: f.Filename, ContentType: f.ContentType, ByteSize: f.ByteSize, SHA256: f.SHA256,
		Purpose: f.Purpose, Status: f.Status, RejectionReason: f.RejectionReason, ExecutionID: f.ExecutionID,
		UploadExpiresAt: f.UploadExpiresAt, ConfirmedAt: f.ConfirmedAt, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
}
