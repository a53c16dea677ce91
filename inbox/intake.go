package inbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/inbox/agent"
	"github.com/kobana/kobana-mcp/inbox/mailparse"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// The intake is where mail enters the Inbox, whichever way it came (SMTP
// or the HTTP intake): the raw message is stored exactly as received, one
// e-mail per recipient inbox, each parsed, screened and, when approved,
// handed to the processing agent. A message an inbox has already (a
// relay's retry) is answered with the e-mail stored then (intake_dedupe.go).

// Intake channels, stored in emails.intake.
const (
	intakeSMTP = "smtp"
	intakeHTTP = "http"
)

// errNoRecipient is a message none of whose recipients is a live inbox
// (they were all deleted between the recipient check and the data).
var errNoRecipient = errors.New("inbox: no recipient is a live inbox")

// receive stores and screens one received message for each recipient that
// is a live inbox (rcpts that are not are skipped: the SMTP and HTTP
// intakes refuse them before calling). Each e-mail is written in its own
// transaction with its events — email.received, then email.rejected when
// screening refused it — its usage count and, when approved, its
// processing job, so an e-mail is never half-received. A message that does
// not parse is still stored, rejected as unparseable.
//
// The e-mails of earlier recipients stay stored when a later one fails: a
// sender that retries delivers those again, and each inbox that has the
// message already answers the e-mail it has (Duplicate) and writes
// nothing — unless the message has no Message-ID, when it cannot be told
// from a new one and is stored twice, the usual at-least-once of mail.
func (s *service) receive(ctx context.Context, raw []byte, envelopeFrom string, rcpts []string, via string) ([]receivedEmail, error) {
	msg, perr := parseMessage(raw)
	seen := map[string]bool{}
	var inboxes []inboxRecord
	for _, rc := range rcpts {
		addr := normalizeAddress(rc)
		if addr == "" || seen[addr] {
			continue
		}
		seen[addr] = true
		ib, err := inboxByAddress(ctx, s.db, addr)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		inboxes = append(inboxes, ib)
	}
	return s.receiveParsed(ctx, raw, msg, perr, envelopeFrom, inboxes, via)
}

// receiveParsed is receive for a message parsed already (msg, perr: what
// parseMessage answered) and recipients resolved to their inboxes (each
// once), as the HTTP intake has them after checking them.
func (s *service) receiveParsed(ctx context.Context, raw []byte, msg *mailparse.Message, perr error, envelopeFrom string, inboxes []inboxRecord, via string) ([]receivedEmail, error) {
	if len(inboxes) == 0 {
		return nil, errNoRecipient
	}
	sum := sha256.Sum256(raw)
	digest := hex.EncodeToString(sum[:])
	in := incoming{raw: raw, digest: digest, msg: msg, parseErr: perr, envelopeFrom: normalizeAddress(envelopeFrom), via: via, receivedAt: store.Now()}
	if msg != nil {
		in.dedupeKey = dedupeKey(msg.MessageID, digest)
	}
	// Outside any transaction: the extraction holds no lock.
	in.extracted = s.extractAtIntake(ctx, msg, len(raw), in.sender(), in.receivedAt)
	var out []receivedEmail
	for _, ib := range inboxes {
		// The envelope recipients an e-mail shows are those of its own
		// organization: another organization's address never leaks.
		var to []string
		for _, other := range inboxes {
			if other.OrganizationID == ib.OrganizationID {
				to = append(to, other.Email)
			}
		}
		r, err := s.receiveFor(ctx, ib, to, in)
		if errors.Is(err, store.ErrNotFound) {
			continue // the inbox was deleted meanwhile
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, errNoRecipient
	}
	return out, nil
}

// incoming is one received message, shared by its recipients' e-mails.
type incoming struct {
	raw          []byte
	digest       string
	msg          *mailparse.Message
	parseErr     error
	envelopeFrom string
	via          string
	receivedAt   time.Time
	// dedupeKey is emails.dedupe_key ("" when the message has no
	// Message-ID: never deduplicated).
	dedupeKey string
	// extracted is the built-in extractor's run on the message when it
	// ran at intake (extractAtIntake), nil when the queue processes it.
	extracted *intakeRun
}

// sender is who screening and the API name as the sender: the From
// header's address, else the envelope sender.
func (in incoming) sender() string {
	if in.msg != nil && in.msg.From != nil {
		if a := normalizeAddress(in.msg.From.Address); a != "" {
			return a
		}
	}
	return in.envelopeFrom
}

// receiveFor writes the e-mail of one recipient inbox, in one
// transaction, or answers the one the inbox has already for the same
// message (Duplicate), writing nothing. The transaction reads the inbox,
// its settings and its tenant in one statement (mailContext) and writes
// the e-mail with its key (an insert that does nothing when the inbox has
// the key already: intake_dedupe.go), its raw message, its events, its
// job and its usage: on PostgreSQL seven round trips with BEGIN and COMMIT
// (docs/decisions.md, "Inbox intake on PostgreSQL").
func (s *service) receiveFor(ctx context.Context, ib inboxRecord, to []string, in incoming) (receivedEmail, error) {
	var rec emailRecord
	duplicate := false
	err := s.db.WithTx(ctx, func(tx *store.Tx) error {
		mc, err := readMailContext(ctx, tx, ib.OrganizationID, ib.WorkspaceID, ib.ID)
		if err != nil {
			return err
		}
		cur, ws := mc.inbox, mc.settings
		if !mc.settingsOK || (limited(ws) && tx.Dialect() == store.Postgres) {
			if ws, err = lockedSettings(ctx, tx, cur.OrganizationID, cur.WorkspaceID); err != nil {
				return err
			}
		}
		var v verdict
		switch {
		case cur.Status != "active":
			v = reject(rejectInboxInactive, "the inbox %s is inactive", cur.Email)
		case in.parseErr != nil:
			v = reject(rejectUnparseable, "the message could not be read (%v)", in.parseErr)
		default:
			v = screen(cur, in.msg, in.sender(), ws)
		}
		rec = newEmailRecord(cur, to, in, v)
		inserted, err := insertEmailKeyed(ctx, tx, &rec, in.raw, in.dedupeKey)
		if err != nil {
			return err
		}
		if !inserted {
			// The inbox has the message already: a retry that follows the
			// first delivery, or one that raced it (on PostgreSQL the
			// insert waited for that delivery to commit). Its e-mail is
			// the answer and nothing is written.
			prev, err := emailByDedupeKey(ctx, tx, cur.OrganizationID, cur.ID, in.dedupeKey)
			if err != nil {
				// Not "the inbox is gone" (receive skips those): the
				// sender must retry, the message is stored for nobody yet.
				return fmt.Errorf("inbox: the e-mail of an earlier delivery is gone: %v", err)
			}
			rec, duplicate = prev, true
			return nil
		}
		slugs := []string{"email.received"}
		if !v.Approved {
			slugs = append(slugs, "email.rejected")
		}
		if err := s.emitEmailEvents(ctx, tx, cur, mc.tenant, rec, slugs...); err != nil {
			return err
		}
		if !v.Approved {
			return nil
		}
		if run := in.extracted; run != nil && !costLimitReached(ws) {
			// Processed at intake: the outcome the job would have
			// recorded, in this transaction (intake_extract.go).
			record := newAgentRunRecord(rec, cur, agent.ExtractorName, run.model)
			record.StartedAt = run.startedAt
			done, ok, err := s.writeLocalSuccess(ctx, tx, rec, cur, &mc.tenant, record, run.res, run.took)
			if err != nil {
				return err
			}
			if !ok {
				// The claim of a row this transaction inserted cannot
				// fail; if it ever did, the intake fails whole (the
				// sender retries) rather than leave the e-mail approved
				// with no job.
				return fmt.Errorf("inbox: the e-mail %s just received could not be claimed", rec.ID)
			}
			rec = done
		} else if err := s.enqueueProcessing(ctx, tx, cur.OrganizationID, rec.ID, false); err != nil {
			return err
		}
		// The usage last: it is the intake's only update of a row other
		// e-mails of the workspace may update too (one of the month's
		// slots, settings_store.go).
		return addUsageSlot(ctx, tx, ws, 1, 0)
	})
	if err != nil {
		return receivedEmail{}, err
	}
	if duplicate {
		s.logger().Info("inbox: message delivered again, kept once", "email_id", rec.ID, "inbox_id", rec.InboxID, "intake", in.via)
	}
	return receivedEmail{emailRecord: rec, Duplicate: duplicate}, nil
}

// emitEmailEvents emits an e-mail's system events (email.received, then
// email.rejected when screening refused it): scoped to its inbox, about
// the e-mail, carrying both as the API shows them and the tenant, the
// data encoded once for all of them.
func (s *service) emitEmailEvents(ctx context.Context, tx *store.Tx, ib inboxRecord, tenant tenantSnapshot, r emailRecord, slugs ...string) error {
	if s.hooks == nil {
		return nil
	}
	data := tenant.add(r.OrganizationID, r.WorkspaceID, map[string]any{"inbox": toInboxJSON(ib), "email": emailJSON(r)})
	encoded, err := webhooks.MarshalData(data)
	if err != nil {
		return fmt.Errorf("inbox: emit %s: %w", slugs[0], err)
	}
	evs := make([]webhooks.Event, len(slugs))
	for i, slug := range slugs {
		evs[i] = webhooks.Event{OrganizationID: r.OrganizationID, WorkspaceID: r.WorkspaceID, Slug: slug,
			ScopeID: ib.ID, SubjectID: r.ID, Data: encoded}
	}
	if _, err := s.hooks.EmitAll(ctx, tx, evs...); err != nil {
		return fmt.Errorf("inbox: emit %s: %w", slugs[0], err)
	}
	return nil
}

// newEmailRecord is the row of one recipient inbox's e-mail.
func newEmailRecord(ib inboxRecord, to []string, in incoming, v verdict) emailRecord {
	r := emailRecord{
		ID: store.NewID(), OrganizationID: ib.OrganizationID, WorkspaceID: ib.WorkspaceID, InboxID: ib.ID,
		AgentID: ib.AgentID, FromAddress: in.sender(), ToJSON: jsonList(to),
		CcJSON: "[]", BccJSON: "[]", HeaderToJSON: "[]", AttachmentsJSON: "[]",
		RawSize: int64(len(in.raw)), RawSHA256: in.digest, Intake: in.via,
		AgentMetadataJSON: "{}", CustomMetadataJSON: "{}",
		ReceivedAt: in.receivedAt, CreatedAt: in.receivedAt, UpdatedAt: in.receivedAt,
		Status: emailApproved, RejectionReason: v.reason(),
	}
	if !v.Approved {
		r.Status = emailRejected
	}
	m := in.msg
	if m == nil {
		return r
	}
	r.MessageID = m.MessageID
	subject := m.Subject
	r.Subject = &subject
	r.CcJSON, r.BccJSON, r.HeaderToJSON = jsonList(addresses(m.Cc)), jsonList(addresses(m.Bcc)), jsonList(addresses(m.To))
	if m.Forwarded {
		r.Forwarded = 1
		if m.ForwardedFor != "" {
			f := strings.ToLower(m.ForwardedFor)
			r.ForwardedFor = &f
		}
	}
	if m.Text != "" {
		t := m.Text
		r.BodyText = &t
	}
	if m.HTML != "" {
		h := m.HTML
		r.BodyHTML = &h
	}
	atts := make([]emailAttachment, 0, len(m.Attachments))
	for _, a := range m.Attachments {
		atts = append(atts, emailAttachment{Filename: a.Filename, ContentType: a.ContentType, Size: a.Size})
	}
	r.AttachmentsJSON = jsonList(atts)
	if m.Date != nil {
		d := m.Date.UTC().Truncate(time.Microsecond)
		r.SentAt = &d
	}
	return r
}
