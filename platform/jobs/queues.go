package jobs

import (
	"fmt"
	"sort"

	"github.com/riverqueue/river"
)

// The project's River queues. Every kind runs on QueueDefault unless its
// args implement Queued: the heavy kinds — a document or an export drawn
// to a file, a Kadu execution, an Inbox e-mail's processing agent, each
// up to minutes of work — run in queues of their own, with workers of
// their own, so that a burst of them never leaves the messages, webhooks
// and outbox sends of QueueDefault waiting behind it (issue 22: ten
// statement PDFs of one organization held every worker for a minute).
const (
	// QueueDefault is River's default queue: short jobs (sends, webhook
	// deliveries, commands, schedules).
	QueueDefault = river.QueueDefault
	// QueueDocuments runs Dunning's documents and exports.
	QueueDocuments = "documents"
	// QueueExecutions runs Kadu's workflow executions.
	QueueExecutions = "executions"
	// QueueInbox runs the Inbox's processing agent.
	QueueInbox = "inbox"
)

// heavyQueues are the queues split off QueueDefault, in a fixed order.
var heavyQueues = []string{QueueDocuments, QueueExecutions, QueueInbox}

// Queued is implemented by the args of a kind that runs in a queue of its
// own (one of the Queue constants). Enqueue puts the job there unless the
// caller's InsertOpts name a queue.
type Queued interface {
	JobQueue() string
}

// queueWorkers splits a process's concurrency between the queues: each
// heavy queue gets a fifth of it (at least 1), QueueDefault the rest (at
// least 1). With the default 10: 2 documents, 2 executions, 2 inbox, 4
// default — a process never runs more than Concurrency jobs at once,
// except below 4, where every queue still gets its one worker.
// Config.QueueWorkers overrides any queue's share.
func queueWorkers(concurrency int, override map[string]int) map[string]int {
	heavy := max(1, concurrency/5)
	out := map[string]int{}
	rest := concurrency
	for _, name := range heavyQueues {
		out[name] = heavy
		rest -= heavy
	}
	out[QueueDefault] = max(1, rest)
	for name, n := range override {
		out[name] = n
	}
	return out
}

// checkQueueWorkers refuses an override River would refuse.
func checkQueueWorkers(override map[string]int) error {
	names := make([]string, 0, len(override))
	for name := range override {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if n := override[name]; n < 1 || n > river.QueueNumWorkersMax {
			return fmt.Errorf("jobs: QueueWorkers[%q] %d: want 1 to %d", name, n, river.QueueNumWorkersMax)
		}
	}
	return nil
}

// withQueue returns opts with the args' own queue when the caller named
// none (nil opts stay nil when the args have none).
func withQueue(args river.JobArgs, opts *river.InsertOpts) *river.InsertOpts {
	qd, ok := args.(Queued)
	if !ok || (opts != nil && opts.Queue != "") {
		return opts
	}
	var o river.InsertOpts
	if opts != nil {
		o = *opts
	}
	o.Queue = qd.JobQueue()
	return &o
}
