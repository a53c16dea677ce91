package kadu

import (
	"context"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The SQL of a file's row (kadu_files); the bytes are in the bucket
// (files_config.go).

const fileColumns = `id, organization_id, purpose, filename, content_type, byte_size, sha256, status, rejection_reason,
	upload_state, storage_key, execution_id, created_by, upload_expires_at, confirmed_at, created_at, updated_at, deleted_at`

func insertFile(ctx context.Context, q store.Querier, f *fileRecord) error {
	_, err := q.Exec(ctx, `INSERT INTO kadu_files (`+fileColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.OrganizationID, f.Purpose, f.Filename, f.ContentType, f.ByteSize, f.SHA256, f.Status, f.RejectionReason,
		f.UploadState, f.StorageKey, f.ExecutionID, f.CreatedBy, f.UploadExpiresAt, f.ConfirmedAt, f.CreatedAt, f.UpdatedAt, f.DeletedAt)
	return err
}

// getFile loads a file of the organization; a deleted one, or another
// organization's, is store.ErrNotFound.
func getFile(ctx context.Context, q store.Querier, orgID, id string) (*fileRecord, error) {
	var f fileRecord
	if err := q.Get(ctx, &f, `SELECT `+fileColumns+` FROM kadu_files WHERE organization_id = ? AND id = ? AND status <> 'deleted'`, orgID, id); err != nil {
		return nil, err
	}
	return &f, nil
}

// fileByID loads a file by id alone, for the signed URLs (which carry no
// organization: the signature names the file).
func fileByID(ctx context.Context, q store.Querier, id string) (*fileRecord, error) {
	var f fileRecord
	if err := q.Get(ctx, &f, `SELECT `+fileColumns+` FROM kadu_files WHERE id = ?`, id); err != nil {
		return nil, err
	}
	return &f, nil
}

// setFileStatus moves a file from one status to another (and its reason);
// store.ErrNotFound when it is no longer in from.
func setFileStatus(ctx context.Context, q store.Querier, f *fileRecord, from, to string, reason *string, now time.Time) error {
	sets := "status = ?, rejection_reason = ?, updated_at = ?"
	args := []any{to, reason, now}
	switch to {
	case fileReady:
		sets += ", confirmed_at = ?"
		args = append(args, now)
	case fileDeleted:
		sets += ", deleted_at = ?"
		args = append(args, now)
	}
	args = append(args, f.ID, from)
	if err := store.ExpectOne(q.Exec(ctx, `UPDATE kadu_files SET `+sets+` WHERE id = ? AND status = ?`, args...)); err != nil {
		return err
	}
	f.Status, f.RejectionReason, f.UpdatedAt = to, reason, now
	if to == fileReady {
		f.ConfirmedAt = &now
	}
	return nil
}

// executionOutputs are the ready output files an execution wrote, by
// name.
func executionOutputs(ctx context.Context, q store.Querier, orgID, execID string) ([]fileRecord, error) {
	out := []fileRecord{}
	err := q.Select(ctx, &out, `SELECT `+fileColumns+` FROM kadu_files
		WHERE organization_id = ? AND execution_id = ? AND status = 'ready' ORDER BY filename`, orgID, execID)
	return out, err
}
