package inbox

import (
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/inbox/mailparse"
)

// TestScreening walks screen() through each rule and its order, without a
// database: the same inbox and settings, one thing changed per case.
func TestScreening(t *testing.T) {
	t.Parallel()
	intp := func(n int) *int { return &n }
	i64 := func(n int64) *int64 { return &n }
	f64 := func(n float64) *float64 { return &n }
	pdf := mailparse.Attachment{Filename: "boleto.pdf", ContentType: "application/pdf", Size: 800}
	logo := mailparse.Attachment{Filename: "logo.png", ContentType: "image/png", Size: 5000, Inline: true, ContentID: "logo"}
	base := func() (inboxRecord, *mailparse.Message, workspaceSettings) {
		ib := inboxRecord{Email: "contas@inbox.localhost", Status: "active", AttachmentsAllow: 1, AllowedRecipients: []string{}, Filters: []inboxFilter{}}
		msg := &mailparse.Message{Subject: "Boleto março", Text: "segue o boleto", From: &mailparse.Address{Address: "Cobranca@Fornecedor.example"}, Attachments: []mailparse.Attachment{pdf, logo}}
		ws := workspaceSettings{UsageMonth: "2026-03", MonthlyEmailsUsed: 10, MonthlyCostUsed: 5}
		return ib, msg, ws
	}
	cases := []struct {
		name   string
		change func(*inboxRecord, *mailparse.Message, *workspaceSettings) string // returns the sender
		code   string                                                            // "" approved
		text   string                                                            // in the message
	}{
		{"plain", nil, "", ""},
		{"inactive first", func(ib *inboxRecord, _ *mailparse.Message, ws *workspaceSettings) string {
			ib.Status, ib.AllowedRecipients, ws.MonthlyEmailsLimit = "inactive", []string{"x@y.example"}, intp(1)
			return "cobranca@fornecedor.example"
		}, rejectInboxInactive, "contas@inbox.localhost is inactive"},
		{"allowed by domain, any case", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.AllowedRecipients = []string{"ana@x.example", "@FORNECEDOR.example"}
			return "cobranca@fornecedor.example"
		}, "", ""},
		{"allowed by address", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.AllowedRecipients = []string{" Cobranca@fornecedor.example "}
			return "cobranca@fornecedor.example"
		}, "", ""},
		{"a subdomain is not the domain", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.AllowedRecipients = []string{"@fornecedor.example"}
			return "a@evil-fornecedor.example"
		}, rejectSenderNotAllowed, "a@evil-fornecedor.example is not among"},
		{"no sender, allow-list", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.AllowedRecipients = []string{"@fornecedor.example"}
			return ""
		}, rejectSenderNotAllowed, "names no sender"},
		{"filter on the body", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.Filters = []inboxFilter{{Field: "subject", Operator: "equals", Value: "x", Action: "reject"}, {Field: "body", Operator: "matches", Value: `bolet[oa]`, Action: "reject"}}
			return "cobranca@fornecedor.example"
		}, rejectFilter, `rule 2 (body matches "bolet[oa]")`},
		{"filter on an attachment name", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.Filters = []inboxFilter{{Field: "attachment_name", Operator: "ends_with", Value: ".PDF", Action: "reject"}}
			return "cobranca@fornecedor.example"
		}, rejectFilter, "rule 1"},
		{"an allow filter does not skip the attachment rules", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.Filters = []inboxFilter{{Field: "from", Operator: "contains", Value: "fornecedor", Action: "allow"}}
			ib.AttachmentsAllow = 0
			return "cobranca@fornecedor.example"
		}, rejectAttachments, "has 1"},
		{"inline parts are not attachments", func(ib *inboxRecord, m *mailparse.Message, _ *workspaceSettings) string {
			ib.AttachmentsAllow = 0
			m.Attachments = []mailparse.Attachment{logo}
			return "cobranca@fornecedor.example"
		}, "", ""},
		{"file number", func(ib *inboxRecord, m *mailparse.Message, _ *workspaceSettings) string {
			ib.AttachmentsMaxFileNumber = intp(1)
			m.Attachments = append(m.Attachments, pdf)
			return "cobranca@fornecedor.example"
		}, rejectAttachmentLimit, "2 attachments, the inbox accepts at most 1"},
		{"file size at the limit passes", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.AttachmentsMaxFileSize = i64(800)
			return "cobranca@fornecedor.example"
		}, "", ""},
		{"file size", func(ib *inboxRecord, _ *mailparse.Message, _ *workspaceSettings) string {
			ib.AttachmentsMaxFileSize = i64(799)
			return "cobranca@fornecedor.example"
		}, rejectAttachmentLimit, `"boleto.pdf" has 800 bytes`},
		{"total size", func(ib *inboxRecord, m *mailparse.Message, _ *workspaceSettings) string {
			ib.AttachmentsMaxTotalSize = i64(1500)
			m.Attachments = append(m.Attachments, pdf)
			return "cobranca@fornecedor.example"
		}, rejectAttachmentLimit, "total 1600 bytes"},
		{"e-mails limit reached", func(_ *inboxRecord, _ *mailparse.Message, ws *workspaceSettings) string {
			ws.MonthlyEmailsLimit = intp(10)
			ws.MonthlyCostLimit = f64(1)
			return "cobranca@fornecedor.example"
		}, rejectMonthlyEmails, "its 10 e-mails of 2026-03"},
		{"e-mails limit not reached", func(_ *inboxRecord, _ *mailparse.Message, ws *workspaceSettings) string {
			ws.MonthlyEmailsLimit = intp(11)
			return "cobranca@fornecedor.example"
		}, "", ""},
		{"cost limit reached", func(_ *inboxRecord, _ *mailparse.Message, ws *workspaceSettings) string {
			ws.MonthlyCostLimit = f64(5)
			return "cobranca@fornecedor.example"
		}, rejectMonthlyCost, "BRL 5.00"},
	}
	for _, c := range cases {
		ib, msg, ws := base()
		sender := "cobranca@fornecedor.example"
		if c.change != nil {
			sender = c.change(&ib, msg, &ws)
		}
		v := screen(ib, msg, sender, ws)
		if c.code == "" {
			if !v.Approved || v.reason() != nil {
				t.Fatalf("%s: rejected %s: %s", c.name, v.Code, v.Message)
			}
			continue
		}
		if v.Approved || v.Code != c.code || !strings.Contains(v.Message, c.text) {
			t.Fatalf("%s: %+v, want %s with %q", c.name, v, c.code, c.text)
		}
		if r := v.reason(); r == nil || *r != c.code+": "+v.Message {
			t.Fatalf("%s: reason %v", c.name, r)
		}
	}
}

func TestScreeningReasonBounded(t *testing.T) {
	t.Parallel()
	v := reject(rejectFilter, "%s", strings.Repeat("é", 2000))
	r := v.reason()
	if len(*r) > rejectionReasonMaxBytes || !strings.HasPrefix(*r, "filter_rejected: é") || strings.ContainsRune(*r, '\uFFFD') {
		t.Fatalf("reason of %d bytes", len(*r))
	}
}
