package inbox

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// emailFilter narrows emails_list; ids are resolved, Before is the key the
// page continues after (emailCursorKey of the previous page's last row).
type emailFilter struct {
	Status       string
	InboxID      string
	From         string
	ReceivedFrom *time.Time // inclusive
	ReceivedTo   *time.Time // exclusive
	Before       string
	Limit        int
}

// emailCursorKey is what a page's cursor holds of its last e-mail: its
// received_at (Unix microseconds, the precision stored) and its id, the
// listing's order (docs/decisions.md, "Listings at scale").
func emailCursorKey(r emailRecord) string {
	return strconv.FormatInt(r.ReceivedAt.UnixMicro(), 10) + "|" + r.ID
}

// errEmailCursor answers a cursor that is not one of this listing's.
var errEmailCursor = rest.Validation("the request is invalid", rest.FieldError{Field: "cursor", Message: "is not a cursor of this listing"})

// emailsAfter is the (received_at, id) a page continues after. A cursor
// made before the listing was ordered by received_at holds only an id: its
// e-mail's received_at is read.
func emailsAfter(ctx context.Context, q store.Querier, orgID, workspaceID, key string) (time.Time, string, error) {
	at, id, ok := strings.Cut(key, "|")
	if !ok {
		var t time.Time
		err := q.Get(store.ShortRead(ctx), &t, `SELECT received_at FROM emails WHERE organization_id = ? AND workspace_id = ? AND id = ?`, orgID, workspaceID, key)
		if errors.Is(err, store.ErrNotFound) {
			return time.Time{}, "", errEmailCursor
		}
		return t, key, err
	}
	us, err := strconv.ParseInt(at, 10, 64)
	if err != nil || id == "" {
		return time.Time{}, "", errEmailCursor
	}
	return time.UnixMicro(us).UTC(), id, nil
}

// emailListColumns are the columns a listing shows (emailListJSON) and
// pages by (emailCursorKey): not the bodies, which emails_get shows, nor
// what no view shows (the organization, the raw message's size and hash,
// the intake, created_at, updated_at). The driver describes every column
// a query names on every run, so each unread one is work saved on every
// page, empty ones included; TestEmailListColumns proves a listed e-mail
// shows what emails_get shows of it, body aside.
const emailListColumns = `id, workspace_id, inbox_id, agent_id, message_id, status, subject,
	from_address, to_addresses, cc_addresses, bcc_addresses, header_to, forwarded, forwarded_for,
	rejection_reason, spam_verdict, virus_verdict, attachments,
	agent_metadata, custom_metadata, last_error, sent_at, received_at, processed_at`

// emailsListQuery is the listing's statement: live e-mails of the
// workspace, newest first by (received_at, id), after the cursor's pair.
// Every combination of status and inbox_id has an index that serves it in
// this order (00130_inbox_email_listing.sql), the received_at bounds are a
// range of it, and from (a substring) is the one filter read row by row
// (TestEmailsListPlans pins the plans).
func emailsListQuery(d store.Dialect, orgID, workspaceID string, f emailFilter, afterAt *time.Time, afterID string) (string, []any) {
	args := make([]any, 0, 9)
	args = append(args, orgID, workspaceID)
	var shape emailsListShape
	if f.InboxID != "" {
		shape |= withInbox
		args = append(args, f.InboxID)
	}
	if f.Status != "" {
		shape |= withStatus
		args = append(args, f.Status)
	}
	if f.ReceivedFrom != nil {
		shape |= withReceivedFrom
		args = append(args, *f.ReceivedFrom)
	}
	if f.ReceivedTo != nil {
		shape |= withReceivedTo
		args = append(args, *f.ReceivedTo)
	}
	if afterAt != nil {
		shape |= withAfter
		args = append(args, *afterAt, afterID)
	}
	if f.From != "" {
		shape |= withFrom
		args = append(args, strings.ToLower(f.From))
	}
	if d == store.Postgres {
		shape |= onPostgres
	}
	return shape.query(), append(args, f.Limit+1)
}

// emailsListShape is which filters a listing has: its statement's text
// depends on nothing else, so each shape's text is built once (building
// it on every request was a tenth of a signed-in listing's allocations).
type emailsListShape uint8

const (
	withInbox emailsListShape = 1 << iota
	withStatus
	withReceivedFrom
	withReceivedTo
	withAfter
	withFrom
	onPostgres
	emailsListShapes = 1 << iota
)

var emailsListTexts [emailsListShapes]atomic.Pointer[string]

// query is the shape's statement; its placeholders take the arguments in
// the order emailsListQuery appends them.
func (shape emailsListShape) query() string {
	if q := emailsListTexts[shape].Load(); q != nil {
		return *q
	}
	query := `SELECT ` + emailListColumns + ` FROM emails WHERE organization_id = ? AND workspace_id = ?`
	if shape&withInbox != 0 {
		query += ` AND inbox_id = ?`
	}
	if shape&withStatus != 0 {
		query += ` AND status = ?`
	}
	if shape&withReceivedFrom != 0 {
		query += ` AND received_at >= ?`
	}
	if shape&withReceivedTo != 0 {
		query += ` AND received_at < ?`
	}
	if shape&withAfter != 0 {
		query += ` AND (received_at, id) < (?, ?)`
	}
	query += ` AND deleted_at IS NULL`
	if shape&withFrom != 0 {
		d := store.SQLite
		if shape&onPostgres != 0 {
			d = store.Postgres
		}
		query += fromContains(d)
	}
	query += ` ORDER BY received_at DESC, id DESC LIMIT ?`
	emailsListTexts[shape].Store(&query)
	return query
}

// fromContains is the from filter, the sender address containing the
// (lower-case) text. On PostgreSQL it is strpos rather than LIKE '%…%':
// the planner estimates a LIKE with leading wildcard to match almost
// nothing, so it chose to fetch every row of the workspace and sort them
// over walking the index in order until the page is full; strpos(…) > 0
// gets the default estimate of a comparison (a third), which keeps the
// ordered walk. SQLite's planner keeps it either way.
func fromContains(d store.Dialect) string {
	if d == store.Postgres {
		return ` AND strpos(LOWER(from_address), ?) > 0`
	}
	return ` AND instr(LOWER(from_address), ?) > 0`
}

// listEmails returns up to f.Limit+1 live e-mails of the workspace, newest
// first, after f.Before.
func listEmails(ctx context.Context, q store.Querier, orgID, workspaceID string, f emailFilter) ([]emailRecord, error) {
	var afterAt *time.Time
	var afterID string
	if f.Before != "" {
		at, id, err := emailsAfter(ctx, q, orgID, workspaceID, f.Before)
		if err != nil {
			return nil, err
		}
		afterAt, afterID = &at, id
	}
	query, args := emailsListQuery(q.Dialect(), orgID, workspaceID, f, afterAt, afterID)
	if f.From == "" {
		// An index serves every other filter in the listing's order, so
		// the page costs its LIMIT's rows at most (store.ShortRead).
		ctx = store.ShortRead(ctx)
	}
	rows := []emailRecord{}
	if err := q.Select(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	return rows, nil
}
