package records

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of a file's row (kadu_files); the bytes are in the bucket
// (files_config.go).

const fileColumns = `id, organization_id, purpose, filename, content_type, byte_size, sha256, status, rejection_reason,
	upload_state, storage_key, execution_id, created_by, upload_expires_at, confirmed_at, created_at, updated_at, deleted_at`

func InsertFile(ctx context.Context, q store.Querier, f *File) error {
	_, err := q.Exec(ctx, `INSERT INTO kadu_files (`+fileColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.OrganizationID, f.Purpose, f.Filename, f.ContentType, f.ByteSize, f.SHA256, f.Status, f.RejectionReason,
		f.UploadState, f.StorageKey, f.ExecutionID, f.CreatedBy, f.UploadExpiresAt, f.ConfirmedAt, f.CreatedAt, f.UpdatedAt, f.DeletedAt)
	return err
}

// GetFile loads a file of the organization; a deleted one, or another
// organization's, is store.ErrNotFound.
func GetFile(ctx context.Context, q store.Querier, orgID, id string) (*File, error) {
	var f File
	if err := q.Get(ctx, &f, `SELECT `+fileColumns+` FROM kadu_files WHERE organization_id = ? AND id = ? AND status <> 'deleted'`, orgID, id); err != nil {
		return nil, err
	}
	return &f, nil
}

// FileByID loads a file by id alone, for the signed URLs (which carry no
// organization: the signature names the file).
func FileByID(ctx context.Context, q store.Querier, id string) (*File, error) {
	var f File
	if err := q.Get(ctx, &f, `SELECT `+fileColumns+` FROM kadu_files WHERE id = ?`, id); err != nil {
		return nil, err
	}
	return &f, nil
}

// SetFileStatus moves a file from one status to another (and its reason);
// store.ErrNotFound when it is no longer in from.
func SetFileStatus(ctx context.Context, q store.Querier, f *File, from, to string, reason *string, now time.Time) error {
	sets := "status = ?, rejection_reason = ?, updated_at = ?"
	args := []any{to, reason, now}
	switch to {
	case FileReady:
		sets += ", confirmed_at = ?"
		args = append(args, now)
	case FileDeleted:
		sets += ", deleted_at = ?"
		args = append(args, now)
	}
	args = append(args, f.ID, from)
	if err := store.ExpectOne(q.Exec(ctx, `UPDATE kadu_files SET `+sets+` WHERE id = ? AND status = ?`, args...)); err != nil {
		return err
	}
	f.Status, f.RejectionReason, f.UpdatedAt = to, reason, now
	if to == FileReady {
		f.ConfirmedAt = &now
	}
	return nil
}

// ExecutionOutputs are the ready output files an execution wrote, by
// name.
func ExecutionOutputs(ctx context.Context, q store.Querier, orgID, execID string) ([]File, error) {
	out := []File{}
	err := q.Select(ctx, &out, `SELECT `+fileColumns+` FROM kadu_files
		WHERE organization_id = ? AND execution_id = ? AND status = 'ready' ORDER BY filename`, orgID, execID)
	return out, err
}

// OutputByName is the execution's output file of that name, any status
// (store.ErrNotFound when it wrote none).
func OutputByName(ctx context.Context, q store.Querier, execID, name string) (*File, error) {
	var f File
	if err := q.Get(ctx, &f, `SELECT `+fileColumns+` FROM kadu_files WHERE execution_id = ? AND filename = ?`, execID, name); err != nil {
		return nil, err
	}
	return &f, nil
}

// ReplaceOutput rewrites an output file's content fields as f holds them,
// ready again.
func ReplaceOutput(ctx context.Context, q store.Querier, f *File) error {
	_, err := q.Exec(ctx, `UPDATE kadu_files SET content_type = ?, byte_size = ?, sha256 = ?, status = 'ready', confirmed_at = ?,
		updated_at = ?, deleted_at = NULL WHERE id = ?`, f.ContentType, f.ByteSize, f.SHA256, f.ConfirmedAt, f.UpdatedAt, f.ID)
	return err
}

// ExpiredSlots are up to limit upload slots whose time ran out by now,
// oldest first.
func ExpiredSlots(ctx context.Context, q store.Querier, now time.Time, limit int) ([]File, error) {
	var due []File
	err := q.Select(ctx, &due, `SELECT `+fileColumns+` FROM kadu_files
		WHERE status = 'pending_upload' AND upload_expires_at <= ? ORDER BY upload_expires_at LIMIT ?`, now, limit)
	return due, err
}

// SetFileSum records the SHA-256 a confirmation measured.
func SetFileSum(ctx context.Context, q store.Querier, id, sum string) error {
	_, err := q.Exec(ctx, `UPDATE kadu_files SET sha256 = ?, upload_state = 'uploaded' WHERE id = ?`, sum, id)
	return err
}

// ClaimUploadState marks a pending file with no upload as receiving its
// bytes; false when another upload (or none allowed) holds it.
func ClaimUploadState(ctx context.Context, q store.Querier, id string, now time.Time) (bool, error) {
	res, err := q.Exec(ctx, `UPDATE kadu_files SET upload_state = 'uploading', updated_at = ?
		WHERE id = ? AND status = 'pending_upload' AND upload_state = 'none'`, now, id)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ReleaseUpload gives a failed upload's slot back (upload_state none).
func ReleaseUpload(ctx context.Context, q store.Querier, id string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE kadu_files SET upload_state = 'none', updated_at = ? WHERE id = ? AND upload_state = 'uploading'`, now, id)
	return err
}

// SetUploaded records that a file's bytes arrived whole.
func SetUploaded(ctx context.Context, q store.Querier, id string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE kadu_files SET upload_state = 'uploaded', updated_at = ? WHERE id = ?`, now, id)
	return err
}
