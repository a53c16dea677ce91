package inbox

import (
	"time"

	"github.com/kobana/kobana-mcp/inbox/agent"
	"github.com/kobana/kobana-mcp/inbox/extract"
	"github.com/kobana/kobana-mcp/inbox/mailparse"
)

// What a run of the agent starts from, wherever it runs: the processing
// job (processing.go) or the intake (intake_extract.go).

// extractInput is what the agent reads of a message. Due dates decode
// relative to when the e-mail arrived, so a reprocess next year reads the
// same boleto the same way.
func extractInput(msg *mailparse.Message, from string, receivedAt time.Time) extract.Input {
	in := extract.Input{Subject: msg.Subject, From: from, Text: msg.Text, HTML: msg.HTML, ReferenceDate: receivedAt}
	for _, a := range msg.Attachments {
		in.Attachments = append(in.Attachments, extract.Attachment{Filename: a.Filename, ContentType: a.ContentType, Data: a.Data})
	}
	return in
}

// newAgentRunRecord is the run of provider (model, "" for the
// extractor's) on e.
func newAgentRunRecord(e emailRecord, ib inboxRecord, provider, model string) agentRunRecord {
	return agentRunRecord{
		OrganizationID: e.OrganizationID, WorkspaceID: e.WorkspaceID, InboxID: e.InboxID, AgentID: agentIDOf(e, ib),
		EmailID: e.ID, Provider: provider, LLMModel: modelOr(model, agent.ExtractorModel),
	}
}

// costLimitReached says the workspace spent its monthly cost limit: the
// agent is not run (the job records the failure).
func costLimitReached(ws workspaceSettings) bool {
	return ws.MonthlyCostLimit != nil && ws.MonthlyCostUsed >= *ws.MonthlyCostLimit
}

// agentIDOf is the agent an e-mail runs with: its own, else its inbox's.
func agentIDOf(e emailRecord, ib inboxRecord) *string {
	if e.AgentID != nil {
		return e.AgentID
	}
	return ib.AgentID
}

// modelOr is model, or fallback when none is named.
func modelOr(model, fallback string) string {
	if model == "" {
		return fallback
	}
	return model
}
