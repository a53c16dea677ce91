package files

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/csvsafe"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// exportPartBytes is the most an export part holds: the job flushes its
// buffer into a new part when it passes this, and the download reads one
// part at a time.
const exportPartBytes = 256 << 10

// UTF8BOM starts every export, so that spreadsheets read the file as
// UTF-8 and show accents as they are.
const UTF8BOM = "\uFEFF"

// exportWorker writes exports (exportArgs).
type exportWorker struct {
	river.WorkerDefaults[exportArgs]
	s *Service
}

// Timeout bounds one run: 100 000 rows take seconds; four minutes stay
// below the queue's rescue time (five), so a run still writing is never
// taken for a dead one.
func (w *exportWorker) Timeout(*river.Job[exportArgs]) time.Duration { return 4 * time.Minute }

// Work writes the export; the last attempt fails it.
func (w *exportWorker) Work(ctx context.Context, job *river.Job[exportArgs]) error {
	return w.s.writeExport(ctx, job.Args.OrganizationID, job.Args.ExportID, job.Attempt >= exportAttempts)
}

// partWriter is the io.Writer the CSV goes through: it buffers up to
// exportPartBytes and stores each full buffer as the export's next part,
// one INSERT each (no transaction held over the whole file, which on
// SQLite would stall every other writer for its length).
type partWriter struct {
	ctx   context.Context
	db    *store.DB
	id    string
	buf   []byte
	seq   int
	total int64
}

func (p *partWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	if len(p.buf) >= exportPartBytes {
		if err := p.flush(); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

func (p *partWriter) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	if err := insertExportPart(p.ctx, p.db, p.id, p.seq, p.buf); err != nil {
		return err
	}
	p.total += int64(len(p.buf))
	p.seq++
	p.buf = p.buf[:0]
	return nil
}

// writeExport is one run of an export's job. River runs a job at least
// once: only an export still generating is written, a run first removes
// the parts an interrupted run left, and the update that makes it ready
// is conditioned on its status. A refusal of the API's kind fails the
// export at once; any other error is retried, and fails it on the last
// try.
func (s *Service) writeExport(ctx context.Context, orgID, id string, last bool) error {
	e, err := GetExport(ctx, s.DB, orgID, id)
	if errNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if e.Status != FileGenerating {
		return nil
	}
	rows, size, err := s.DrawExport(ctx, e)
	if err != nil {
		var re *rest.Error
		if errors.As(err, &re) || last {
			msg := "the export could not be written: " + err.Error()
			if re != nil {
				msg = re.Message
			}
			return s.finishExport(ctx, e, 0, 0, msg)
		}
		return err
	}
	return s.finishExport(ctx, e, rows, size, "")
}

// DrawExport writes e's CSV into its parts and answers its data rows and
// bytes.
func (s *Service) DrawExport(ctx context.Context, e exportRow) (int64, int64, error) {
	src, ok := exportSources[e.Resource]
	if !ok {
		return 0, 0, rest.Unprocessable("unknown export resource " + e.Resource)
	}
	f, err := e.filters()
	if err != nil {
		return 0, 0, err
	}
	on, err := bankcalendar.ParseDate(e.AmountsOn)
	if err != nil {
		return 0, 0, err
	}
	st, err := ledger.LoadSettings(ctx, s.DB, e.OrganizationID)
	if err != nil {
		return 0, 0, err
	}
	if err := deleteExportParts(ctx, s.DB, e.ID); err != nil {
		return 0, 0, err
	}
	pw := &partWriter{ctx: ctx, db: s.DB, id: e.ID, buf: make([]byte, 0, exportPartBytes+4096)}
	if _, err := pw.Write([]byte(UTF8BOM)); err != nil {
		return 0, 0, err
	}
	// Every cell, whoever wrote it, is neutralised on its way out: the
	// input's cleaning (a name's leading TAB trimmed) is no guarantee
	// (docs/decisions.md "Exports safe to open").
	w := csvsafe.NewWriter(pw)
	if e.FormulaEscaping == FormulaNone {
		w = csvsafe.NewRawWriter(pw)
	}
	w.UseCRLF = true // RFC 4180
	if e.Separator == ";" {
		w.Comma = ';'
	}
	if err := w.Write(src.header); err != nil {
		return 0, 0, err
	}
	cells := exportCells{brazilian: e.Separator == ";", zone: st.Location}
	var n int64
	err = src.write(ctx, s.DB, e.OrganizationID, f, st, on, cells, func(rec []string) error {
		n++
		return w.Write(rec)
	})
	if err != nil {
		return 0, 0, err
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return 0, 0, err
	}
	if err := pw.flush(); err != nil {
		return 0, 0, err
	}
	return n, pw.total, nil
}

// finishExport makes the export ready with its counts (emitting
// dunning.export.ready) or failed with why, if it is still generating.
func (s *Service) finishExport(ctx context.Context, e exportRow, rows, size int64, failure string) error {
	now := s.Clock()
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var res error
		if failure == "" {
			res = markExportReady(ctx, tx, e, rows, size, now)
		} else {
			if err := deleteExportParts(ctx, tx, e.ID); err != nil {
				return err
			}
			res = markExportFailed(ctx, tx, e, failure, now)
		}
		if errNotFound(res) {
			return nil
		}
		if res != nil || failure != "" {
			return res
		}
		fresh, err := GetExport(ctx, tx, e.OrganizationID, e.ID)
		if err != nil {
			return err
		}
		return s.emitFileEvent(ctx, tx, e.OrganizationID, EventExportReady, e.ID, "export", showExport(fresh))
	})
}

// serveExport answers an export's download, one part at a time.
func (s *Service) serveExport(api *rest.API, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := s.Tenant(ctx)
	if err != nil {
		s.writeRawError(api, w, r, err)
		return
	}
	e, err := GetExport(ctx, s.DB, t.OrgID, r.PathValue("id"))
	if err != nil {
		s.writeRawError(api, w, r, ledger.NotFoundAs(err, "export"))
		return
	}
	if e.Status != FileReady {
		s.writeRawError(api, w, r, fileNotReady("export", e.Status, e.Error))
		return
	}
	size := int64(-1)
	if e.ByteSize != nil {
		size = *e.ByteSize
	}
	attachment(w, csvContentType, e.filename(), size)
	w.WriteHeader(http.StatusOK)
	if err := s.StreamExport(ctx, e.ID, func(part []byte) error {
		_, err := w.Write(part)
		return err
	}); err != nil {
		// The status line is gone: the client sees a short body against
		// Content-Length.
		s.Log.ErrorContext(ctx, "dunning: export download broke off", "export", e.ID, "error", err)
	}
}

// StreamExport hands the parts of an export to each in order, reading
// one at a time.
func (s *Service) StreamExport(ctx context.Context, id string, each func([]byte) error) error {
	for seq := 0; ; seq++ {
		part, err := exportPart(ctx, s.DB, id, seq)
		if errNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := each(part); err != nil {
			return err
		}
	}
}

// exportArgs is the job that writes one export, enqueued in the
// transaction that stores its row.
type exportArgs struct {
	OrganizationID string `json:"organization_id"`
	ExportID       string `json:"export_id"`
}

// Kind names the job in the queue.
func (exportArgs) Kind() string { return "dunning.write_export" }

// exportAttempts bounds the tries of an export whose writing keeps
// failing; each try starts the file again.
const exportAttempts = 3

// InsertOpts gives the job its attempts.
func (exportArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: exportAttempts} }
