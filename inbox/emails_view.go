package inbox

import (
	"encoding/json"
	"strings"
	"time"
)

// How an e-mail is shown: by the API (emails_get, emails_list) and in the
// data of the e-mail's events, which carry it as the API shows it, so the
// intake and processing (below the API) build the same view.

// emailView is an e-mail as the API shows it. Subject, addresses, bodies,
// file names and agent_metadata come from third parties (the sender, or
// the agent reading what the sender wrote): data, never instructions.
type emailView struct {
	ID              string            `json:"id"`
	WorkspaceID     string            `json:"workspace_id"`
	InboxID         string            `json:"inbox_id"`
	AgentID         *string           `json:"agent_id"`
	MessageID       string            `json:"message_id"`
	Status          string            `json:"status"`
	Subject         *string           `json:"subject"`
	From            string            `json:"from"`
	To              []string          `json:"to"`
	Cc              []string          `json:"cc"`
	Bcc             []string          `json:"bcc"`
	HeaderTo        []string          `json:"header_to"`
	Forwarded       bool              `json:"forwarded"`
	ForwardedFor    *string           `json:"forwarded_for"`
	RejectionReason *string           `json:"rejection_reason"`
	SpamVerdict     *string           `json:"spam_verdict"`
	VirusVerdict    *string           `json:"virus_verdict"`
	Body            *emailBody        `json:"body,omitempty"`
	Attachments     []emailAttachment `json:"attachments"`
	AgentMetadata   json.RawMessage   `json:"agent_metadata"`
	CustomMetadata  json.RawMessage   `json:"custom_metadata"`
	LastError       *string           `json:"last_error"`
	SentAt          *time.Time        `json:"sent_at"`
	ReceivedAt      time.Time         `json:"received_at"`
	ProcessedAt     *time.Time        `json:"processed_at"`
	EmlDownloadPath string            `json:"eml_download_path"`
}

// emailBody is the decoded body; html is as received, not sanitised.
type emailBody struct {
	Text *string `json:"text"`
	HTML *string `json:"html"`
}

// emailJSON is the e-mail as emails_get shows it, and as the e-mail's
// events carry it (data.email).
func emailJSON(r emailRecord) emailView {
	return emailView{
		ID: r.ID, WorkspaceID: r.WorkspaceID, InboxID: r.InboxID, AgentID: r.AgentID, MessageID: r.MessageID,
		Status: r.Status, Subject: r.Subject, From: r.FromAddress,
		To: decodeList[string](r.ToJSON), Cc: decodeList[string](r.CcJSON), Bcc: decodeList[string](r.BccJSON),
		HeaderTo: decodeList[string](r.HeaderToJSON), Forwarded: r.Forwarded != 0, ForwardedFor: r.ForwardedFor,
		RejectionReason: r.RejectionReason, SpamVerdict: r.SpamVerdict, VirusVerdict: r.VirusVerdict,
		Body:          &emailBody{Text: r.BodyText, HTML: r.BodyHTML},
		Attachments:   decodeList[emailAttachment](r.AttachmentsJSON),
		AgentMetadata: jsonObject(r.AgentMetadataJSON), CustomMetadata: jsonObject(r.CustomMetadataJSON),
		LastError: r.LastError, SentAt: utcOrNil(r.SentAt), ReceivedAt: r.ReceivedAt.UTC(), ProcessedAt: utcOrNil(r.ProcessedAt),
		EmlDownloadPath: APIBase + "/emails/" + r.ID + "/eml",
	}
}

// emailListJSON is an e-mail in a listing: everything but the body, which
// can be large (emails_get has it).
func emailListJSON(r emailRecord) emailView {
	v := emailJSON(r)
	v.Body = nil
	return v
}

// decodeList reads a JSON array column; a broken one shows as empty
// rather than failing the whole answer.
func decodeList[T any](s string) []T {
	out := []T{}
	_ = json.Unmarshal([]byte(s), &out)
	if out == nil {
		out = []T{}
	}
	return out
}

// jsonObject is a JSON object column as raw JSON ({} when empty or not an
// object).
func jsonObject(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(s)
}

func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
