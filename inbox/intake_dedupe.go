package inbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
// decides: receiveFor first looks for the e-mail under the workspace's
// lock (the usual way a retry is recognised, writing nothing), and when a
// concurrent delivery got past that look and committed first, setting
// the key conflicts, the transaction is undone and the winner is answered
// instead. Either way the duplicate emits no event, counts no usage and
// enqueues no processing.

// errDuplicateDelivery is a delivery that lost the race to store the
// same message: its transaction is rolled back, and the e-mail stored by
// the winner is answered.
var errDuplicateDelivery = errors.New("inbox: the message is stored already")

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

// setDedupeKey records a new e-mail's key, in the transaction that
// inserted it. Another e-mail of the inbox holding the key is
// errDuplicateDelivery (the transaction must then be rolled back:
// PostgreSQL refuses anything more in it).
func setDedupeKey(ctx context.Context, tx *store.Tx, r emailRecord, key string) error {
	err := store.ExpectOne(tx.Exec(ctx, `UPDATE emails SET dedupe_key = ? WHERE organization_id = ? AND id = ?`, key, r.OrganizationID, r.ID))
	if errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("%w: %w", errDuplicateDelivery, err)
	}
	return err
}
