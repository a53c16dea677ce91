package jobs

import (
	"maps"
	"testing"

	"github.com/riverqueue/river"
)

// Concurrency is split between the queues: a fifth to each heavy queue,
// the rest to the default one, every queue at least one worker; an
// override replaces one queue's share.
func TestQueueWorkersSplitConcurrency(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		concurrency int
		override    map[string]int
		want        map[string]int
	}{
		{10, nil, map[string]int{QueueDefault: 4, QueueDocuments: 2, QueueExecutions: 2, QueueInbox: 2}},
		{20, nil, map[string]int{QueueDefault: 8, QueueDocuments: 4, QueueExecutions: 4, QueueInbox: 4}},
		{1, nil, map[string]int{QueueDefault: 1, QueueDocuments: 1, QueueExecutions: 1, QueueInbox: 1}},
		{10, map[string]int{QueueDocuments: 5}, map[string]int{QueueDefault: 4, QueueDocuments: 5, QueueExecutions: 2, QueueInbox: 2}},
	} {
		if got := queueWorkers(tc.concurrency, tc.override); !maps.Equal(got, tc.want) {
			t.Errorf("queueWorkers(%d, %v) = %v, want %v", tc.concurrency, tc.override, got, tc.want)
		}
	}
	if _, err := (Config{QueueWorkers: map[string]int{QueueDocuments: 0}}).withDefaults(); err == nil {
		t.Error("a queue with no worker was accepted")
	}
}

// A Queued kind goes to its queue unless the caller names one.
func TestWithQueue(t *testing.T) {
	t.Parallel()
	if o := withQueue(docArgs{}, nil); o == nil || o.Queue != QueueDocuments {
		t.Errorf("docArgs went to %+v, want the documents queue", o)
	}
	if o := withQueue(docArgs{}, &river.InsertOpts{Queue: "other", MaxAttempts: 3}); o.Queue != "other" || o.MaxAttempts != 3 {
		t.Errorf("the caller's queue was replaced: %+v", o)
	}
	if o := withQueue(docArgs{}, &river.InsertOpts{MaxAttempts: 3}); o.Queue != QueueDocuments || o.MaxAttempts != 3 {
		t.Errorf("the caller's options were lost: %+v", o)
	}
	if o := withQueue(recordArgs{}, nil); o != nil {
		t.Errorf("a default kind got options %+v", o)
	}
}
