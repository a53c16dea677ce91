package inbox

import "time"

// How an inbox is shown: by the API and in the data of the events about
// its e-mails (intake.go, processing.go).

// inboxJSON is an inbox as the API shows it.
type inboxJSON struct {
	ID                       string        `json:"id"`
	ExternalID               string        `json:"external_id"`
	WorkspaceID              string        `json:"workspace_id"`
	AgentID                  *string       `json:"agent_id"`
	Label                    string        `json:"label"`
	Email                    string        `json:"email"`
	Status                   string        `json:"status"`
	AllowedRecipients        []string      `json:"allowed_recipients"`
	Filters                  []inboxFilter `json:"filters"`
	AttachmentsAllow         bool          `json:"attachments_allow"`
	AttachmentsMaxFileNumber *int          `json:"attachments_max_file_number"`
	AttachmentsMaxFileSize   *int64        `json:"attachments_max_file_size"`
	AttachmentsMaxTotalSize  *int64        `json:"attachments_max_total_size"`
	CreatedAt                time.Time     `json:"created_at"`
	UpdatedAt                time.Time     `json:"updated_at"`
}

func toInboxJSON(r inboxRecord) inboxJSON {
	return inboxJSON{
		ID: r.ID, ExternalID: r.ExternalID, WorkspaceID: r.WorkspaceID, AgentID: r.AgentID, Label: r.Label,
		Email: r.Email, Status: r.Status, AllowedRecipients: r.AllowedRecipients, Filters: r.Filters,
		AttachmentsAllow: r.AttachmentsAllow != 0, AttachmentsMaxFileNumber: r.AttachmentsMaxFileNumber,
		AttachmentsMaxFileSize: r.AttachmentsMaxFileSize, AttachmentsMaxTotalSize: r.AttachmentsMaxTotalSize,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}
