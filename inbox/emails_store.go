package inbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// E-mail statuses (00110_inbox_emails.sql): received -> approved |
// rejected; approved -> processing -> processed | failed; a reprocess puts
// any status back to processing.
const (
	emailReceived   = "received"
	emailApproved   = "approved"
	emailRejected   = "rejected"
	emailProcessing = "processing"
	emailProcessed  = "processed"
	emailFailed     = "failed"
)

// emailStatuses are the statuses in the order an e-mail moves through
// them (the status filter's enum).
var emailStatuses = []string{emailReceived, emailApproved, emailRejected, emailProcessing, emailProcessed, emailFailed}

// emailRecord is a received e-mail as stored. The raw message lives in
// inbox_email_raw (emailRaw), never altered.
type emailRecord struct {
	ID                 string     `db:"id"`
	OrganizationID     string     `db:"organization_id"`
	WorkspaceID        string     `db:"workspace_id"`
	InboxID            string     `db:"inbox_id"`
	AgentID            *string    `db:"agent_id"`
	MessageID          string     `db:"message_id"`
	Status             string     `db:"status"`
	Subject            *string    `db:"subject"`
	FromAddress        string     `db:"from_address"`
	ToJSON             string     `db:"to_addresses"`
	CcJSON             string     `db:"cc_addresses"`
	BccJSON            string     `db:"bcc_addresses"`
	HeaderToJSON       string     `db:"header_to"`
	Forwarded          int        `db:"forwarded"`
	ForwardedFor       *string    `db:"forwarded_for"`
	RejectionReason    *string    `db:"rejection_reason"`
	SpamVerdict        *string    `db:"spam_verdict"`
	VirusVerdict       *string    `db:"virus_verdict"`
	BodyText           *string    `db:"body_text"`
	BodyHTML           *string    `db:"body_html"`
	AttachmentsJSON    string     `db:"attachments"`
	RawSize            int64      `db:"raw_size"`
	RawSHA256          string     `db:"raw_sha256"`
	Intake             string     `db:"intake"`
	AgentMetadataJSON  string     `db:"agent_metadata"`
	CustomMetadataJSON string     `db:"custom_metadata"`
	LastError          *string    `db:"last_error"`
	SentAt             *time.Time `db:"sent_at"`
	ReceivedAt         time.Time  `db:"received_at"`
	ProcessedAt        *time.Time `db:"processed_at"`
	CreatedAt          time.Time  `db:"created_at"`
	UpdatedAt          time.Time  `db:"updated_at"`
}

// emailAttachment is what the e-mail row keeps of an attachment: its
// description, not its bytes (those are in the raw message).
type emailAttachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
}

const emailColumns = `id, organization_id, workspace_id, inbox_id, agent_id, message_id, status, subject,
	from_address, to_addresses, cc_addresses, bcc_addresses, header_to, forwarded, forwarded_for,
	rejection_reason, spam_verdict, virus_verdict, body_text, body_html, attachments, raw_size, raw_sha256,
	intake, agent_metadata, custom_metadata, last_error, sent_at, received_at, processed_at, created_at, updated_at`

// getEmail reads a live e-mail of the organization by id, whatever its
// workspace: what the processing job, which knows only the organization
// and the e-mail, reads. Another organization's is store.ErrNotFound.
func getEmail(ctx context.Context, q store.Querier, orgID, ref string) (emailRecord, error) {
	var r emailRecord
	err := q.Get(ctx, &r, `SELECT `+emailColumns+` FROM emails WHERE organization_id = ? AND id = ? AND deleted_at IS NULL`, orgID, ref)
	return r, err
}

// getWorkspaceEmail reads a live e-mail of the caller's workspace: the
// API's lookup, so another workspace's e-mail answers 404 like another
// organization's.
func getWorkspaceEmail(ctx context.Context, q store.Querier, orgID, workspaceID, id string) (emailRecord, error) {
	return selectWorkspaceEmail(ctx, q, "", orgID, workspaceID, id)
}

// selectWorkspaceEmail is getWorkspaceEmail with a row lock clause
// (forUpdate) for a read-modify-write.
func selectWorkspaceEmail(ctx context.Context, q store.Querier, lock, orgID, workspaceID, id string) (emailRecord, error) {
	var r emailRecord
	err := q.Get(ctx, &r, `SELECT `+emailColumns+` FROM emails
		WHERE organization_id = ? AND workspace_id = ? AND id = ? AND deleted_at IS NULL`+lock, orgID, workspaceID, id)
	return r, err
}

// setEmailStatus records where processing is: the status, when it
// finished (nil: not finished, the column is cleared), the agent's result
// (nil leaves the stored one as it is; otherwise a JSON object) and the
// last error (nil clears it). An e-mail of another organization, or none,
// is store.ErrNotFound.
func setEmailStatus(ctx context.Context, q store.Querier, orgID, emailID, status string, processedAt *time.Time, agentMetadata json.RawMessage, lastError *string) error {
	valid := false
	for _, st := range emailStatuses {
		valid = valid || st == status
	}
	if !valid {
		return fmt.Errorf("inbox: e-mail status %q is not one of %s", status, strings.Join(emailStatuses, ", "))
	}
	if processedAt != nil {
		t := processedAt.UTC().Truncate(time.Microsecond)
		processedAt = &t
	}
	query := `UPDATE emails SET status = ?, processed_at = ?, last_error = ?, updated_at = ?`
	args := []any{status, processedAt, lastError, store.Now()}
	if agentMetadata != nil {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(agentMetadata, &obj); err != nil || obj == nil {
			return fmt.Errorf("inbox: e-mail agent_metadata must be a JSON object")
		}
		query += `, agent_metadata = ?`
		args = append(args, string(bytes.TrimSpace(agentMetadata)))
	}
	query += ` WHERE organization_id = ? AND id = ? AND deleted_at IS NULL`
	args = append(args, orgID, emailID)
	return store.ExpectOne(q.Exec(ctx, query, args...))
}

// emailRaw is the message exactly as it was received. An e-mail of
// another organization, or none, is store.ErrNotFound.
func emailRaw(ctx context.Context, q store.Querier, orgID, emailID string) ([]byte, error) {
	var raw []byte
	err := q.Get(ctx, &raw, `SELECT r.raw FROM inbox_email_raw r JOIN emails e ON e.id = r.email_id
		WHERE e.organization_id = ? AND e.id = ? AND e.deleted_at IS NULL`, orgID, emailID)
	return raw, err
}

// errEmailBusy is reprocessing an e-mail whose processing is running: a
// second run would race the first over the same result.
var errEmailBusy = errors.New("inbox: the e-mail is being processed")

// markReprocessing puts an e-mail back to processing for a reprocess:
// processed_at and the last error cleared. It is a conflict when the
// e-mail is being processed right now (errEmailBusy).
func markReprocessing(ctx context.Context, tx *store.Tx, orgID, workspaceID, id string) (emailRecord, error) {
	r, err := selectWorkspaceEmail(ctx, tx, forUpdate(tx), orgID, workspaceID, id)
	if err != nil {
		return r, err
	}
	if r.Status == emailProcessing {
		return r, errEmailBusy
	}
	now := store.Now()
	if err := store.ExpectOne(tx.Exec(ctx, `UPDATE emails SET status = ?, processed_at = NULL, last_error = NULL, updated_at = ?
		WHERE organization_id = ? AND id = ? AND status <> ? AND deleted_at IS NULL`,
		emailProcessing, now, orgID, r.ID, emailProcessing)); err != nil {
		return r, err
	}
	r.Status, r.ProcessedAt, r.LastError, r.UpdatedAt = emailProcessing, nil, nil, now
	return r, nil
}

// claimEmail makes an e-mail processing only if it still waits for it
// (approved, or processing since an earlier attempt): the claim of a run
// that records its outcome in the same transaction (processLocally). On
// PostgreSQL a concurrent run of the same e-mail waits on the row here and
// then finds it processed; SQLite's writers are serialized. An e-mail
// deleted, or whose outcome another run recorded, is store.ErrNotFound.
func claimEmail(ctx context.Context, q store.Querier, orgID, emailID string) error {
	return store.ExpectOne(q.Exec(ctx, `UPDATE emails SET status = ?, updated_at = ?
		WHERE organization_id = ? AND id = ? AND deleted_at IS NULL AND status IN (?, ?)`,
		emailProcessing, store.Now(), orgID, emailID, emailApproved, emailProcessing))
}

// claimProcessed is the claim and the outcome at once: an e-mail that
// still waits for its processing becomes processed at at, with the agent's
// result (metadata, a JSON object) and no last error, and the row is
// returned as stored, for the events (recordLocalSuccess). An e-mail
// deleted, or whose outcome another run recorded, is store.ErrNotFound.
func claimProcessed(ctx context.Context, q store.Querier, orgID, emailID string, at time.Time, metadata string) (emailRecord, error) {
	var done emailRecord
	err := q.Get(ctx, &done, `UPDATE emails SET status = ?, processed_at = ?, last_error = NULL, updated_at = ?, agent_metadata = ?
		WHERE organization_id = ? AND id = ? AND deleted_at IS NULL AND status IN (?, ?)
		RETURNING `+emailColumns,
		emailProcessed, at, at, metadata, orgID, emailID, emailApproved, emailProcessing)
	return done, err
}

// jsonList marshals a list for a JSON column ([] when empty).
func jsonList[T any](v []T) string {
	if v == nil {
		v = []T{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// liveEmailID answers id when it is a live e-mail of the workspace,
// store.ErrNotFound otherwise.
func liveEmailID(ctx context.Context, q store.Querier, orgID, workspaceID, id string) (string, error) {
	var found string
	err := q.Get(ctx, &found, `SELECT id FROM emails
		WHERE organization_id = ? AND workspace_id = ? AND id = ? AND deleted_at IS NULL`, orgID, workspaceID, id)
	return found, err
}

// emailByDedupeKey reads the e-mail an inbox already has for a key;
// store.ErrNotFound when it has none.
func emailByDedupeKey(ctx context.Context, q store.Querier, orgID, inboxID, key string) (emailRecord, error) {
	var r emailRecord
	err := q.Get(ctx, &r, `SELECT `+emailColumns+` FROM emails
		WHERE organization_id = ? AND inbox_id = ? AND dedupe_key = ?`, orgID, inboxID, key)
	return r, err
}

// insertEmailKeyed writes a new e-mail row with its dedupe key ("" for
// none: NULL, never deduplicated) and its raw message, in q (the intake's
// transaction). inserted is false, and nothing written, when the inbox has
// an e-mail with the key already. On PostgreSQL both rows are written by
// one statement (the raw message inserted from what the e-mail's insert
// returned: nothing when it did nothing), a round trip less per e-mail.
func insertEmailKeyed(ctx context.Context, q store.Querier, r *emailRecord, raw []byte, key string) (inserted bool, err error) {
	var k *string
	if key != "" {
		k = &key
	}
	insert := `INSERT INTO emails (` + emailColumns + `, dedupe_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`
	args := []any{r.ID, r.OrganizationID, r.WorkspaceID, r.InboxID, r.AgentID, r.MessageID, r.Status, r.Subject,
		r.FromAddress, r.ToJSON, r.CcJSON, r.BccJSON, r.HeaderToJSON, r.Forwarded, r.ForwardedFor,
		r.RejectionReason, r.SpamVerdict, r.VirusVerdict, r.BodyText, r.BodyHTML, r.AttachmentsJSON, r.RawSize, r.RawSHA256,
		r.Intake, r.AgentMetadataJSON, r.CustomMetadataJSON, r.LastError, r.SentAt, r.ReceivedAt, r.ProcessedAt, r.CreatedAt, r.UpdatedAt, k}
	if q.Dialect() == store.Postgres {
		res, err := q.Exec(ctx, `WITH e AS (`+insert+` RETURNING id)
			INSERT INTO inbox_email_raw (email_id, raw) SELECT id, ? FROM e`, append(args, raw)...)
		if err != nil {
			return false, fmt.Errorf("inbox: insert e-mail: %w", err)
		}
		n, err := res.RowsAffected()
		return n == 1, err
	}
	res, err := q.Exec(ctx, insert, args...)
	if err != nil {
		return false, fmt.Errorf("inbox: insert e-mail: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if _, err := q.Exec(ctx, `INSERT INTO inbox_email_raw (email_id, raw) VALUES (?, ?)`, r.ID, raw); err != nil {
		return false, fmt.Errorf("inbox: insert raw e-mail: %w", err)
	}
	return true, nil
}
