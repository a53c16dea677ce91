-- Kobana Autonomous Inbox: a message a relay delivers twice to one inbox
-- (it retries when our answer came too late) is kept once.
--
-- emails.dedupe_key is the hex SHA-256 of the Message-ID header and the
-- raw message's SHA-256 (raw_sha256), joined by a NUL byte: fixed-size,
-- so a Message-ID of any length fits the index. It is NULL for e-mails
-- without a Message-ID, which are never deduplicated, and for every
-- e-mail stored before this migration: rows received twice before it
-- stay as they are, and the index, which leaves NULLs out, cannot fail
-- on them. The unique index is what decides between two deliveries
-- racing each other: exactly one row per inbox and key.

-- +goose Up
ALTER TABLE emails ADD COLUMN dedupe_key TEXT;
CREATE UNIQUE INDEX emails_dedupe_idx ON emails (organization_id, inbox_id, dedupe_key)
    WHERE dedupe_key IS NOT NULL;

-- +goose Down
DROP INDEX emails_dedupe_idx;
ALTER TABLE emails DROP COLUMN dedupe_key;
