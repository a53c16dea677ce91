package inbox

import (
	"crypto/sha256"
	"encoding/hex"
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
// decides: receiveFor inserts the e-mail with its key (insertEmailKeyed,
// emails_store.go) and an insert that conflicts with the index does
// nothing. The inbox then has the message (emailByDedupeKey reads it):
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
