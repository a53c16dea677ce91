package files

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// DocumentArgs is the job that draws one document, enqueued in the
// transaction that stores its row (requestDocumentTx). It carries ids
// only: the job reads the row and what it prints as they are when it runs,
// at the amounts of the row's amounts_on.
type DocumentArgs struct {
	OrganizationID string `json:"organization_id"`
	DocumentID     string `json:"document_id"`
}

// Kind names the job in the queue.
func (DocumentArgs) Kind() string { return "dunning.render_document" }

// documentAttempts bounds the tries of a document whose drawing keeps
// failing for a reason that may pass (the database away); then it is
// failed, and asking again makes a new one.
const documentAttempts = 5

// InsertOpts gives the job its attempts.
func (DocumentArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: documentAttempts}
}

// RequestDocumentTx stores a document of kind about subjectID (a debtor's
// id for a statement, a charge's for a settlement letter, an agreement's
// for its term), generating, and enqueues the job that draws it, both in
// tx: the document exists exactly when the change that asked for it
// commits. It checks what a document of that kind needs — a statement's
// debtor of the organization with no more open charges than a document
// holds (else VALIDATION_ERROR, document_limits.go), a settlement
// letter's charge paid (else UNPROCESSABLE) — and answers the new document's id. The agreements and
// protests call it inside their own transactions (an agreement's term
// when it is proposed, the settlement letter a protest's cancellation
// attaches); the routes of document_api.go call it too.
func (s *Service) RequestDocumentTx(ctx context.Context, tx *store.Tx, orgID, kind, subjectID string) (documentID string, err error) {
	st, err := ledger.LoadSettings(ctx, tx, orgID)
	if err != nil {
		return "", err
	}
	on := st.Today(s.Clock())
	var filename string
	switch kind {
	case DocumentStatement:
		d, err := ledger.GetDebtor(ctx, tx, orgID, subjectID)
		if err != nil {
			return "", ledger.NotFoundAs(err, "debtor")
		}
		if err := checkStatementSize(ctx, tx, orgID, d); err != nil {
			return "", err
		}
		subjectID = d.ID
		filename = "extrato-" + fileSlug(d.ExternalID) + "-" + on.String() + ".pdf"
	case DocumentSettlementLetter:
		c, err := ledger.GetCharge(ctx, tx, orgID, subjectID)
		if err != nil {
			return "", ledger.NotFoundAs(err, "charge")
		}
		if c.Status != lifecycle.ChargePaid {
			return "", rest.Unprocessable(fmt.Sprintf("a settlement letter is only for a paid charge: this charge is %s", c.Status))
		}
		subjectID = c.ID
		filename = "carta-de-quitacao-" + fileSlug(notify.ChargeName(c)) + ".pdf"
	case DocumentAgreementTerm:
		filename = "termo-de-acordo-" + fileSlug(subjectID) + ".pdf"
	default:
		return "", fmt.Errorf("dunning: unknown document kind %q", kind)
	}
	now := s.Clock()
	id := store.NewID()
	if err := insertDocument(ctx, tx, documentRow{ID: id, OrganizationID: orgID, Kind: kind, SubjectID: subjectID, AmountsOn: on.String(),
		Status: FileGenerating, ContentType: pdfContentType, Filename: filename, CreatedBy: notify.UserOf(ctx), CreatedAt: now, UpdatedAt: now}); err != nil {
		return "", err
	}
	if s.Jobs == nil {
		return "", fmt.Errorf("dunning: documents need the job queue")
	}
	if _, err := s.Jobs.EnqueueTx(ctx, tx, DocumentArgs{OrganizationID: orgID, DocumentID: id}, nil); err != nil {
		return "", err
	}
	return id, nil
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileSlug is s safe in a file name: letters, digits, dot, dash and
// underscore, at most 60 of them.
func fileSlug(s string) string {
	out := strings.Trim(unsafeFileChars.ReplaceAllString(s, "-"), "-.")
	if len(out) > 60 {
		out = out[:60]
	}
	if out == "" {
		out = "documento"
	}
	return out
}
