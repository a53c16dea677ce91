package inbox

import "github.com/kobana/kobana-mcp/platform/jobs"

// An e-mail's processing (a model's agent, up to minutes) runs in a queue
// of its own, so a burst of it never holds the workers of messages,
// webhooks and sends (platform/jobs, queues.go), and each organization
// gets its share of that queue's workers (jobs.Organizational).

// JobQueue implements jobs.Queued.
func (processArgs) JobQueue() string { return jobs.QueueInbox }

// OrganizationKey implements jobs.Organizational.
func (a processArgs) OrganizationKey() string { return a.OrganizationID }
