package inbox

import "time"

// The rows the Inbox's operations, intake and jobs share. Their store
// functions live beside the operations that own them (inboxes_store.go,
// agents_store.go, settings_store.go, emails_store.go, agent_runs_store.go).

// inboxRecord is a live inbox.
type inboxRecord struct {
	ID                       string    `db:"id"`
	OrganizationID           string    `db:"organization_id"`
	WorkspaceID              string    `db:"workspace_id"`
	ExternalID               string    `db:"external_id"`
	AgentID                  *string   `db:"agent_id"`
	Label                    string    `db:"label"`
	Email                    string    `db:"email"`
	Status                   string    `db:"status"`
	AllowedRecipientsJSON    string    `db:"allowed_recipients"`
	FiltersJSON              string    `db:"filters"`
	AttachmentsAllow         int       `db:"attachments_allow"`
	AttachmentsMaxFileNumber *int      `db:"attachments_max_file_number"`
	AttachmentsMaxFileSize   *int64    `db:"attachments_max_file_size"`
	AttachmentsMaxTotalSize  *int64    `db:"attachments_max_total_size"`
	CreatedAt                time.Time `db:"created_at"`
	UpdatedAt                time.Time `db:"updated_at"`

	// Decoded from the JSON columns when the row is read.
	AllowedRecipients []string      `db:"-"`
	Filters           []inboxFilter `db:"-"`
}

// agentRecord is a live agent: the model and instructions an inbox's
// e-mails are processed with.
type agentRecord struct {
	ID             string    `db:"id"`
	OrganizationID string    `db:"organization_id"`
	WorkspaceID    string    `db:"workspace_id"`
	ExternalID     string    `db:"external_id"`
	Label          string    `db:"label"`
	LLMModel       string    `db:"llm_model"`
	SystemMessage  string    `db:"system_message"`
	SkillsRepo     *string   `db:"skills_repo"`
	CreatedAt      time.Time `db:"created_at"`
	UpdatedAt      time.Time `db:"updated_at"`
}

// workspaceSettings are the Inbox's settings and usage of one workspace.
type workspaceSettings struct {
	WorkspaceID        string    `db:"workspace_id"`
	OrganizationID     string    `db:"organization_id"`
	Source             string    `db:"source"`
	MonthlyCostLimit   *float64  `db:"monthly_cost_limit"`
	MonthlyEmailsLimit *int      `db:"monthly_emails_limit"`
	UsageMonth         string    `db:"usage_month"`
	MonthlyCostUsed    float64   `db:"monthly_cost_used"`
	MonthlyEmailsUsed  int       `db:"monthly_emails_used"`
	CustomMetadataJSON string    `db:"custom_metadata"`
	UpdatedAt          time.Time `db:"updated_at"`
}
