package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/jobs/riverschema"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// snoozedDocs is how many documents the queue's share snoozed.
func snoozedDocs(t *testing.T, q *Queue) float64 {
	t.Helper()
	n, _ := metric(t, q.Collector(), "kobana_jobs_share_snoozed_total", map[string]string{"kind": "jobs_test.document"})
	return n
}

// A lone organization's burst is never snoozed: no other organization
// waits, so its jobs over the share run anyway, on both of the queue's
// workers at once (docs/decisions.md, "A work-conserving organization
// share"). Before the share was work-conserving, A ran one document at a
// time and every other fetch of its jobs was a snooze.
func TestOrganizationShareIsWorkConserving(t *testing.T) {
	t.Parallel()
	const burst, work = 6, 300 * time.Millisecond
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, true)
		docs := newDocWorker(work)
		AddWorker(q, docs)
		for i := range burst {
			if _, err := q.Enqueue(ctx, docArgs{Org: "A", Token: fmt.Sprintf("A%d", i)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		start(t, q)
		eventually(t, "every document to end", func() bool {
			docs.mu.Lock()
			defer docs.mu.Unlock()
			return len(docs.ended) == burst
		})
		docs.mu.Lock()
		most := docs.most["A"]
		docs.mu.Unlock()
		if most != 2 {
			t.Errorf("A alone ran at most %d documents at once, want 2 (both workers; its share is 1)", most)
		}
		if n := snoozedDocs(t, q); n != 0 {
			t.Errorf("A alone was snoozed %v times, want never", n)
		}
	})
}

// Two organizations both at their share leave no worker idle: with four
// workers and a share of 1, A and B each run one long document, then
// each asks for three more. Each of those is over its organization's
// share while the other organization waits, but that one is at its share
// too and could not take the worker: they run at once, all four workers
// busy, and nothing is snoozed. (Yielding to any waiting organization
// would snooze A's and B's jobs for each other over and over.)
func TestOrganizationShareLeavesNoWorkerIdle(t *testing.T) {
	t.Parallel()
	const more, work = 3, 1500 * time.Millisecond
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueueWith(t, db, Config{Work: true, QueueWorkers: map[string]int{QueueDocuments: 4}, OrganizationShare: 1})
		docs := newDocWorker(work)
		AddWorker(q, docs)
		enqueue := func(org string, i int) {
			if _, err := q.Enqueue(ctx, docArgs{Org: org, Token: fmt.Sprintf("%s%d", org, i)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		enqueue("A", 0)
		enqueue("B", 0)
		start(t, q)
		eventually(t, "A's and B's first documents to start", func() bool {
			docs.mu.Lock()
			defer docs.mu.Unlock()
			return docs.running["A"] == 1 && docs.running["B"] == 1
		})
		for i := 1; i <= more; i++ {
			enqueue("A", i)
			enqueue("B", i)
		}
		most := 0
		eventually(t, "every document to end", func() bool {
			docs.mu.Lock()
			defer docs.mu.Unlock()
			most = max(most, docs.running["A"]+docs.running["B"])
			return len(docs.ended) == 2*(more+1)
		})
		if most != 4 {
			t.Errorf("A and B ran at most %d documents at once, want all 4 workers busy", most)
		}
		if n := snoozedDocs(t, q); n != 0 {
			t.Errorf("%v snoozes, want none: organizations at their share yielded to each other", n)
		}
	})
}

// While B's document waits, A starts no job over its share, even with
// the queue's workers free for it: the share yields to the waiting
// organization. B's document is inserted before the queue starts,
// after A's burst, so it is waiting from A's first start until its own;
// every start of A's in that time must find A within its share (1). A
// document of B's stored without its organization (inserted before
// organizations were stamped) counts as another organization's.
func TestOrganizationShareYieldsToAWaitingOrganization(t *testing.T) {
	t.Parallel()
	const burst, work = 6, 200 * time.Millisecond
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			t.Parallel()
			storetest.Run(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				q := newQueue(t, db, true)
				docs := newDocWorker(work)
				AddWorker(q, docs)
				var aIDs []int64
				for i := range burst {
					id, err := q.Enqueue(ctx, docArgs{Org: "A", Token: fmt.Sprintf("A%d", i)}, nil)
					if err != nil {
						t.Fatal(err)
					}
					aIDs = append(aIDs, id)
				}
				bID, err := q.Enqueue(ctx, docArgs{Org: "B", Token: "B0"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if legacy {
					if _, err := db.Exec(ctx, "UPDATE "+q.table("river_job")+" SET metadata = '{}' WHERE id = ?", bID); err != nil {
						t.Fatal(err)
					}
				}
				start(t, q)
				eventually(t, "every document to end", func() bool {
					docs.mu.Lock()
					defer docs.mu.Unlock()
					return len(docs.ended) == burst+1
				})
				docs.mu.Lock()
				starts := docs.starts
				docs.mu.Unlock()
				for _, s := range starts {
					if s.token == "B0" {
						break
					}
					if s.running > 1 {
						t.Errorf("%s started while B's document waited, with %d of A's running: over A's share, 1", s.token, s.running)
					}
				}
				if snoozedDocs(t, q) == 0 {
					t.Error("no snooze was counted")
				}
				for _, id := range aIDs {
					if _, attempt := jobState(t, q, id); attempt != 1 {
						t.Errorf("job %d ended at attempt %d: a snooze spent an attempt", id, attempt)
					}
				}
			})
		})
	}
}

// storedOrg is the organization a job's row carries, read with the
// expression the index is made of, and the row's metadata.
func storedOrg(t *testing.T, q *Queue, id int64) (string, map[string]any) {
	t.Helper()
	ctx := context.Background()
	var org *string
	if err := q.db.Get(ctx, &org, "SELECT "+riverschema.OrgExpr(q.db.Dialect())+" FROM "+q.table("river_job")+" WHERE id = ?", id); err != nil {
		t.Fatal(err)
	}
	job, err := q.client.JobGet(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(job.Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if org == nil {
		return "", meta
	}
	return *org, meta
}

// Every Organizational job carries its organization in its row, whichever
// way it is inserted — in the caller's transaction or on its own — and
// the caller's own metadata stays; other kinds carry none.
func TestOrganizationStoredWithTheJob(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, false)
		AddWorker(q, newDocWorker(0))
		AddWorker(q, newRecordWorker())
		var inTx int64
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			var err error
			inTx, err = q.EnqueueTx(ctx, tx, docArgs{Org: "org-tx", Token: "t"}, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		alone, err := q.Enqueue(ctx, docArgs{Org: "org-alone", Token: "a"}, &river.InsertOpts{Metadata: []byte(`{"mine":"kept"}`)})
		if err != nil {
			t.Fatal(err)
		}
		other, err := q.Enqueue(ctx, recordArgs{Token: "r"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if org, _ := storedOrg(t, q, inTx); org != "org-tx" {
			t.Errorf("job enqueued in a transaction stores organization %q, want org-tx", org)
		}
		org, meta := storedOrg(t, q, alone)
		if org != "org-alone" || meta["mine"] != "kept" {
			t.Errorf("job enqueued alone stores organization %q and metadata %v, want org-alone and the caller's key", org, meta)
		}
		if org, _ := storedOrg(t, q, other); org != "" {
			t.Errorf("a kind without organization stores %q", org)
		}
	})
}

// "Is another organization's job of the kind waiting?" reads the index
// of ours on river_job, not the table: a lone organization's 100 000
// waiting jobs are not scanned for it.
func TestOthersWaitingUsesTheIndex(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := newQueue(t, db, false)
		AddWorker(q, newDocWorker(0))
		for i := range 3 {
			if _, err := q.Enqueue(ctx, docArgs{Org: "A", Token: fmt.Sprint(i)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if q.othersWaiting(ctx, "jobs_test.document", []string{"A"}) {
			t.Error("A alone: another organization is said to be waiting")
		}
		if !q.othersWaiting(ctx, "jobs_test.document", []string{"B"}) {
			t.Error("B does not see A's waiting jobs")
		}
		if _, err := q.Enqueue(ctx, docArgs{Org: "0", Token: "low"}, nil); err != nil {
			t.Fatal(err)
		}
		if !q.othersWaiting(ctx, "jobs_test.document", []string{"A"}) {
			t.Error("A does not see organization 0's waiting job")
		}
		if q.othersWaiting(ctx, "jobs_test.document", []string{"A", "0"}) {
			t.Error("with 0 at its share, A sees someone waiting")
		}
		if _, err := q.Enqueue(ctx, docArgs{Org: "M", Token: "between"}, nil); err != nil {
			t.Fatal(err)
		}
		if !q.othersWaiting(ctx, "jobs_test.document", []string{"A", "0"}) {
			t.Error("A does not see M's waiting job, between the two excepted")
		}
		if q.othersWaiting(ctx, "jobs_test.document", []string{"M", "A", "0", "A"}) {
			t.Error("everyone excepted, someone is said to be waiting")
		}
		plan := queryPlan(t, db, "SELECT 1 FROM "+q.table("river_job")+" WHERE kind = 'jobs_test.document' AND state = 'available' AND scheduled_at <= "+
			nowSQL(db.Dialect())+" AND "+riverschema.OrgExpr(db.Dialect())+" > 'A'")
		if !strings.Contains(plan, "river_job_kobana_org_available") {
			t.Errorf("the query does not use the index:\n%s", plan)
		}
	})
}

// The count of an organization's running jobs reads the running rows of
// the queue, not every job of the kind River keeps (completed ones for a
// day): River's fetching index (state, queue, …), not its kind index.
func TestRunningCountReadsOnlyRunningRows(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		q := newQueue(t, db, false)
		query := strings.Replace(strings.Replace(strings.Replace(q.runningQuery(), "?", "1", 1), "?", "'documents'", 1), "?", "'jobs_test.document'", 1)
		plan := queryPlan(t, db, query)
		if !strings.Contains(plan, "river_job_prioritized_fetching_index") || strings.Contains(plan, "river_job_kind") {
			t.Errorf("the running jobs are not read through River's (state, queue) index:\n%s", plan)
		}
	})
}

// queryPlan is the engine's plan of query (seq scans disabled on
// PostgreSQL, whose planner prefers them on a tiny table).
func queryPlan(t *testing.T, db *store.DB, query string) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	err := db.WithTx(ctx, func(tx *store.Tx) error {
		explain := "EXPLAIN QUERY PLAN "
		if db.Dialect() == store.Postgres {
			explain = "EXPLAIN "
			if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				return err
			}
		}
		rows, err := tx.SQL().QueryContext(ctx, explain+query)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			lines = append(lines, fmt.Sprint(vals...))
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
