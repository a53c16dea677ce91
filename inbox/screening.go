package inbox

import (
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/inbox/mailparse"
)

// Rejection codes: the first word of an e-mail's rejection_reason ("code:
// message"), stable for clients and the triage prompt to group by.
const (
	rejectInboxInactive     = "inbox_inactive"
	rejectUnparseable       = "unparseable"
	rejectSenderNotAllowed  = "sender_not_allowed"
	rejectFilter            = "filter_rejected"
	rejectAttachments       = "attachments_not_allowed"
	rejectAttachmentLimit   = "attachment_limit"
	rejectMonthlyEmails     = "monthly_emails_limit"
	rejectMonthlyCost       = "monthly_cost_limit"
	rejectionReasonMaxBytes = 1000
)

// verdict is the outcome of screening one e-mail for one inbox.
type verdict struct {
	Approved bool
	Code     string // "" when approved
	Message  string
}

// reason is the rejection_reason column: "code: message", or nil when
// approved.
func (v verdict) reason() *string {
	if v.Approved {
		return nil
	}
	r := v.Code + ": " + v.Message
	if len(r) > rejectionReasonMaxBytes {
		r = strings.ToValidUTF8(r[:rejectionReasonMaxBytes], "")
	}
	return &r
}

func approve() verdict { return verdict{Approved: true} }

func reject(code, format string, args ...any) verdict {
	return verdict{Code: code, Message: fmt.Sprintf(format, args...)}
}

// screen decides whether an inbox takes a parsed message, in this order:
// the inbox is active; the sender is allowed (allowed_recipients: full
// addresses or @domain entries, compared without case; empty allows
// anyone); the inbox's filters (the first matching rule decides); the
// attachment rules; the workspace's monthly limits. sender is the From
// address (the envelope sender when the header has none).
//
// Attachments are the parts offered as files: inline parts (an image the
// HTML shows by Content-ID, a signature logo) are part of the body and
// count for neither attachments_allow nor the limits. An attached message
// is one attachment of its own size.
func screen(ib inboxRecord, msg *mailparse.Message, sender string, ws workspaceSettings) verdict {
	if ib.Status != "active" {
		return reject(rejectInboxInactive, "the inbox %s is inactive", ib.Email)
	}
	if len(ib.AllowedRecipients) > 0 && !senderAllowed(ib.AllowedRecipients, sender) {
		if sender == "" {
			return reject(rejectSenderNotAllowed, "the message names no sender, and the inbox accepts only its allowed senders")
		}
		return reject(rejectSenderNotAllowed, "the sender %s is not among the inbox's allowed senders", sender)
	}
	files := attachedFiles(msg)
	names := make([]string, 0, len(files))
	for _, a := range msg.AllAttachments() {
		names = append(names, a.Filename)
	}
	for _, a := range files {
		if a.ContentType == "message/rfc822" || a.ContentType == "message/global" {
			names = append(names, a.Filename)
		}
	}
	subject := filterSubject{From: sender, Subject: msg.Subject, Body: msg.PlainText(), AttachmentNames: names}
	if rejected, rule := applyFilters(ib.Filters, subject); rejected {
		f := ib.Filters[rule-1]
		return reject(rejectFilter, "rejected by filter rule %d (%s %s %q)", rule, f.Field, f.Operator, f.Value)
	}
	if v := screenAttachments(ib, files); !v.Approved {
		return v
	}
	if ws.MonthlyEmailsLimit != nil && ws.MonthlyEmailsUsed >= *ws.MonthlyEmailsLimit {
		return reject(rejectMonthlyEmails, "the workspace received its %d e-mails of %s", *ws.MonthlyEmailsLimit, ws.UsageMonth)
	}
	if ws.MonthlyCostLimit != nil && ws.MonthlyCostUsed >= *ws.MonthlyCostLimit {
		return reject(rejectMonthlyCost, "the workspace spent its monthly limit of BRL %.2f in %s", *ws.MonthlyCostLimit, ws.UsageMonth)
	}
	return approve()
}

// attachedFiles are the message's non-inline attachments.
func attachedFiles(msg *mailparse.Message) []mailparse.Attachment {
	var out []mailparse.Attachment
	for _, a := range msg.Attachments {
		if !a.Inline {
			out = append(out, a)
		}
	}
	return out
}

// screenAttachments applies attachments_allow and the three limits.
func screenAttachments(ib inboxRecord, files []mailparse.Attachment) verdict {
	if len(files) == 0 {
		return approve()
	}
	if ib.AttachmentsAllow == 0 {
		return reject(rejectAttachments, "the inbox accepts no attachments, and the message has %d", len(files))
	}
	if n := ib.AttachmentsMaxFileNumber; n != nil && len(files) > *n {
		return reject(rejectAttachmentLimit, "the message has %d attachments, the inbox accepts at most %d", len(files), *n)
	}
	var total int64
	for _, a := range files {
		if n := ib.AttachmentsMaxFileSize; n != nil && a.Size > *n {
			return reject(rejectAttachmentLimit, "the attachment %q has %d bytes, the inbox accepts at most %d per file", a.Filename, a.Size, *n)
		}
		total += a.Size
	}
	if n := ib.AttachmentsMaxTotalSize; n != nil && total > *n {
		return reject(rejectAttachmentLimit, "the attachments total %d bytes, the inbox accepts at most %d per e-mail", total, *n)
	}
	return approve()
}

// senderAllowed reports whether sender matches an allowed_recipients
// entry: a full address, or "@domain" for anyone at that domain.
func senderAllowed(allowed []string, sender string) bool {
	sender = strings.ToLower(strings.TrimSpace(sender))
	if sender == "" {
		return false
	}
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "":
		case strings.HasPrefix(a, "@"):
			if strings.HasSuffix(sender, a) {
				return true
			}
		case a == sender:
			return true
		}
	}
	return false
}
