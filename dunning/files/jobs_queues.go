package files

import "github.com/kobana/kobana-mcp/platform/jobs"

// Documents and exports are drawn in a queue of their own, so a burst of
// them never holds the workers of the notifications' sends
// (platform/jobs/queues.go), and each organization gets its share of
// that queue's workers (jobs.Organizational).

// JobQueue implements jobs.Queued.
func (DocumentArgs) JobQueue() string { return jobs.QueueDocuments }

// OrganizationKey implements jobs.Organizational.
func (a DocumentArgs) OrganizationKey() string { return a.OrganizationID }

// JobQueue implements jobs.Queued.
func (exportArgs) JobQueue() string { return jobs.QueueDocuments }

// OrganizationKey implements jobs.Organizational.
func (a exportArgs) OrganizationKey() string { return a.OrganizationID }
