package files

import (
	"context"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/jobs"
)

// quarantinedMessage is the failure a document or export is left with
// when its job was quarantined (platform/jobs, Config.MaxRescues): its
// attempts kept dying with their process, so it is not tried a third time.
const quarantinedMessage = jobs.QuarantineReason + ": the worker drawing it stopped twice before finishing (its process died); it was not tried again. Ask for it again; if it fails the same way, report it."

// Quarantined fails the document the quarantined job was drawing, through
// the same write as a failed drawing (dunning.document.failed).
func (w *documentWorker) Quarantined(ctx context.Context, job *river.Job[DocumentArgs], _ string) error {
	d, err := getDocument(ctx, w.s.DB, job.Args.OrganizationID, job.Args.DocumentID)
	if errNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if d.Status != FileGenerating {
		return nil
	}
	return w.s.finishDocument(ctx, d, nil, quarantinedMessage)
}

// Quarantined fails the export the quarantined job was writing, through
// the same write as a failed export.
func (w *exportWorker) Quarantined(ctx context.Context, job *river.Job[exportArgs], _ string) error {
	e, err := GetExport(ctx, w.s.DB, job.Args.OrganizationID, job.Args.ExportID)
	if errNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if e.Status != FileGenerating {
		return nil
	}
	return w.s.finishExport(ctx, e, 0, 0, quarantinedMessage)
}

// The workers fail their object when quarantined.
var (
	_ jobs.Quarantiner[DocumentArgs] = (*documentWorker)(nil)
	_ jobs.Quarantiner[exportArgs]   = (*exportWorker)(nil)
)
