package inbox

import (
	"context"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// seedBase is the newest seeded e-mail's received_at; the i-th is i
// seconds older.
var seedBase = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// seedEmailRows writes n e-mails of the workspace in one statement,
// bypassing the intake (the listing reads only the row): alternately in
// inbox a and inbox b, 70 % processed, 10 % each failed, rejected and
// received, senders sender0..99@example.com, ids tag-0000000001… The
// listing tests and benchmarks seed with it (docs/decisions.md, "Listings
// at scale").
func seedEmailRows(t testing.TB, db *store.DB, tag, orgID, workspaceID, a, b string, n int) {
	t.Helper()
	gen, id, at := `generate_series(1, ?) AS g(i)`, `? || '-' || lpad(i::text, 10, '0')`, `?::timestamptz - i * interval '1 second'`
	if db.Dialect() == store.SQLite {
		gen = `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?) SELECT i FROM s) AS g`
		id = `? || '-' || printf('%010d', i)`
		at = `strftime('%Y-%m-%d %H:%M:%S', ?, '-' || i || ' seconds') || '+00:00'`
	}
	base := any(seedBase)
	if db.Dialect() == store.SQLite {
		base = seedBase.Format("2006-01-02 15:04:05")
	}
	_, err := db.Exec(context.Background(), `INSERT INTO emails (id, organization_id, workspace_id, inbox_id, message_id, status, subject,
		from_address, to_addresses, cc_addresses, bcc_addresses, header_to, forwarded, attachments, raw_size, raw_sha256,
		intake, agent_metadata, custom_metadata, received_at, created_at, updated_at)
		SELECT `+id+`, ?, ?, CASE WHEN i % 2 = 0 THEN ? ELSE ? END, '',
			CASE i % 10 WHEN 7 THEN 'failed' WHEN 8 THEN 'rejected' WHEN 9 THEN 'received' ELSE 'processed' END,
			'Boleto', 'sender' || (i % 100) || '@example.com', '[]', '[]', '[]', '[]', 0, '[]', 0, '', 'smtp', '{}', '{}', t, t, t
		FROM (SELECT i, `+at+` AS t FROM `+gen+`) AS seeded`,
		tag, orgID, workspaceID, a, b, base, n)
	if err != nil {
		t.Fatal(err)
	}
	if db.Dialect() == store.Postgres {
		if _, err := db.Exec(context.Background(), `ANALYZE emails`); err != nil {
			t.Fatal(err)
		}
	}
}
