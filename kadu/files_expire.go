package kadu

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/jobs"
)

// The expiry sweep: upload slots not confirmed by upload_expires_at end
// expired and their bytes (a PUT that arrived, unconfirmed) are deleted.
// It runs every minute on the queue's leader; running twice is harmless
// (a slot expires once, deleting nothing twice is no error).

type expireFilesArgs struct{}

// Kind names the job.
func (expireFilesArgs) Kind() string { return "kadu.expire_files" }

type expireFilesWorker struct {
	river.WorkerDefaults[expireFilesArgs]
	s *service
}

// Timeout bounds one sweep.
func (*expireFilesWorker) Timeout(*river.Job[expireFilesArgs]) time.Duration { return 50 * time.Second }

// Work expires the slots past their time.
func (w *expireFilesWorker) Work(ctx context.Context, _ *river.Job[expireFilesArgs]) error {
	_, err := w.s.expireFiles(ctx, w.s.clock())
	return err
}

func registerFileJobs(s *service, q *jobs.Queue) {
	jobs.AddWorker(q, &expireFilesWorker{s: s})
	q.AddPeriodic(river.PeriodicInterval(time.Minute), func() (river.JobArgs, *river.InsertOpts) {
		return expireFilesArgs{}, nil
	}, true)
}

// expireFiles expires up to 500 slots past their time at now and answers
// how many.
func (s *service) expireFiles(ctx context.Context, now time.Time) (int, error) {
	if s.files == nil || s.files.bucket == nil {
		return 0, nil
	}
	due, err := records.ExpiredSlots(ctx, s.db, now, 500)
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	for i := range due {
		if err := s.expireFile(ctx, &due[i]); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
