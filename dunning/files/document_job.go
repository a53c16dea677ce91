package files

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// documentWorker draws documents (documentArgs).
type documentWorker struct {
	river.WorkerDefaults[DocumentArgs]
	s *Service
}

// Timeout bounds one drawing: a few pages take milliseconds and the
// largest document (maxDocumentRows rows) a fraction of a second, so a
// minute is only there for a stuck database.
func (w *documentWorker) Timeout(*river.Job[DocumentArgs]) time.Duration { return time.Minute }

// Work draws the document; the last attempt fails it rather than leave
// it generating for ever.
func (w *documentWorker) Work(ctx context.Context, job *river.Job[DocumentArgs]) error {
	return w.s.renderDocument(ctx, job.Args.OrganizationID, job.Args.DocumentID, job.Attempt >= documentAttempts)
}

// renderDocument is one run of a document's job. River runs a job at
// least once, so only a document still generating is drawn, and the
// update that stores its bytes is conditioned on that status: a second
// run changes nothing. A refusal of the API's kind (the charge is no
// longer paid, the agreement not found) fails the document at once with
// its message; a document grown past maxDocumentRows fails at once too
// and cancels its job (river.JobCancel: never retried); any other error
// is retried, and fails it on the last try. A failure emits no event:
// dunning.document.ready is the only one, and the document shows status
// failed with its error.
func (s *Service) renderDocument(ctx context.Context, orgID, id string, last bool) error {
	d, err := getDocument(ctx, s.DB, orgID, id)
	if errNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if d.Status != FileGenerating {
		return nil
	}
	data, err := s.drawDocument(ctx, d)
	if err != nil {
		var big *documentTooLargeError
		if errors.As(err, &big) {
			// Too large now is too large on every try: fail it once and
			// cancel the job rather than retry (document_limits.go).
			if ferr := s.finishDocument(ctx, d, nil, big.msg); ferr != nil {
				return ferr
			}
			return river.JobCancel(big)
		}
		var re *rest.Error
		if errors.As(err, &re) {
			return s.finishDocument(ctx, d, nil, re.Message)
		}
		if last {
			return s.finishDocument(ctx, d, nil, "the document could not be drawn: "+err.Error())
		}
		return err
	}
	return s.finishDocument(ctx, d, data, "")
}

// drawDocument reads what document d prints and draws it.
func (s *Service) drawDocument(ctx context.Context, d documentRow) ([]byte, error) {
	on, err := bankcalendar.ParseDate(d.AmountsOn)
	if err != nil {
		return nil, fmt.Errorf("dunning: document %s amounts_on: %w", d.ID, err)
	}
	creditor, err := s.creditorParty(ctx, d.OrganizationID)
	if err != nil {
		return nil, err
	}
	switch d.Kind {
	case DocumentStatement:
		doc, err := loadStatement(ctx, s.DB, d.OrganizationID, d.SubjectID, on)
		if err != nil {
			return nil, err
		}
		doc.Creditor, doc.IssuedAt = creditor, d.CreatedAt
		return RenderStatement(doc)
	case DocumentSettlementLetter:
		doc, err := loadSettlement(ctx, s.DB, d.OrganizationID, d.SubjectID, on)
		if err != nil {
			return nil, err
		}
		doc.Creditor, doc.IssuedAt = creditor, d.CreatedAt
		return RenderSettlementLetter(doc)
	case DocumentAgreementTerm:
		term, err := s.loadAgreementTerm(ctx, s.DB, d.OrganizationID, d.SubjectID)
		if err != nil {
			return nil, err
		}
		if n := len(term.Charges) + len(term.Installments); n > MaxDocumentRows {
			return nil, tooManyRows("agreement term", "")
		}
		term.Creditor, term.IssuedAt = creditor, d.CreatedAt
		if term.On.IsZero() {
			term.On = on
		}
		return RenderAgreementTerm(term)
	}
	return nil, rest.Unprocessable("unknown document kind " + d.Kind)
}

// finishDocument stores the drawn bytes (ready, emitting
// dunning.document.ready) or the reason it failed, if the document is
// still generating.
func (s *Service) finishDocument(ctx context.Context, d documentRow, data []byte, failure string) error {
	now := s.Clock()
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		var res error
		if data != nil {
			res = markDocumentReady(ctx, tx, d, data, now)
		} else {
			res = markDocumentFailed(ctx, tx, d, failure, now)
		}
		if errNotFound(res) {
			return nil // another run finished it
		}
		if res != nil || data == nil {
			return res
		}
		fresh, err := getDocument(ctx, tx, d.OrganizationID, d.ID)
		if err != nil {
			return err
		}
		return s.emitFileEvent(ctx, tx, d.OrganizationID, EventDocumentReady, d.ID, "document", showDocument(fresh))
	})
}

// emitFileEvent stores a file's event (dunning.document.ready,
// dunning.export.ready) in tx with the file's description under member,
// never its bytes, and the organization.
func (s *Service) emitFileEvent(ctx context.Context, tx *store.Tx, orgID, slug, subjectID, member string, view fileJSON) error {
	acc := s.Accounts.InTx(tx)
	ws, org, err := restkit.EventHome(ctx, acc, orgID)
	if err != nil {
		return fmt.Errorf("dunning: emit %s: %w", slug, err)
	}
	data := map[string]any{member: view}
	data["organization"] = org
	_, err = s.Hooks.Emit(ctx, tx, webhooks.Event{OrganizationID: orgID, WorkspaceID: ws.ID, Slug: slug, SubjectID: subjectID, Data: data})
	return err
}
