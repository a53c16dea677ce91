package inbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/store"
)

// Relay duplicates (docs/decisions.md, "The Autonomous Inbox"). A relay
// that does not get our answer in time (a timeout after DATA, a dropped
// connection, an HTTP relay's retry) delivers the same message again. The
// intake answers success and keeps one e-mail: a message is the same when
// it has a Message-ID and the same bytes (raw SHA-256) for the same inbox.
// Same Message-ID with other bytes is another e-mail (a resend, an edited
// copy), and a message without Message-ID cannot be told from a new one,
// so it is always stored.
//
// The unique index emails_dedupe_idx (00120_inbox_email_dedupe.sql)
// decides: receiveFor inserts the e-mail with its key and an insert that
// conflicts with the index does nothing. The inbox then has the message:
// a retry that follows the first delivery finds its e-mail at once, and
// one that raced a delivery still in progress waits (on PostgreSQL the
// insert waits for that transaction; SQLite's writers are serialized)
// and finds its e-mail once it committed, or is stored itself if it
// rolled back. Either way the duplicate emits no event, counts no usage
// and enqueues no processing.

// receivedEmail is one recipient inbox's e-mail as receive answers it.
type receivedEmail struct {
	emailRecord
	// Duplicate: this inbox had the message already (a relay's retry);
	// the record is the e-mail stored then, and nothing was written now.
	Duplicate bool
}

// dedupeKey is the message's emails.dedupe_key: the hex SHA-256 of its
// Message-ID and its raw digest joined by NUL; "" when it has no
// Message-ID (or did not parse), which is never deduplicated.
func dedupeKey(messageID, rawDigest string) string {
	if messageID == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(messageID + "\x00" + rawDigest))
	return hex.EncodeToString(sum[:])
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
