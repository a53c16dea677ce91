package files

import (
	"context"
	"errors"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Documents are the PDFs Dunning makes for a creditor to hand out: the
// debtor statement, the settlement letter of a paid charge and the
// agreement term (docs/decisions.md "Dunning: documents and exports").
// A request stores the row, generating, and enqueues its job in the same
// transaction (document_request.go); the job draws the PDF
// (document_pdf.go) into the row. No tool ever answers the bytes: they are
// downloaded over REST or read as the resource kobana://dunning/documents/{id}.

// Permissions on documents: viewers read and download them, members have
// them made (an ordinary write).
var (
	documentsRead  = mcp.Requirement{Scopes: []string{"dunning.documents"}, Permission: identity.PermRead}
	documentsWrite = mcp.Requirement{Scopes: []string{"dunning.documents"}, Permission: identity.PermWrite}
)

// Document kinds (dunning_documents.kind).
const (
	DocumentStatement        = "statement"
	DocumentSettlementLetter = "settlement_letter"
	DocumentAgreementTerm    = "agreement_term"
)

// The events of files (webhookEventSlugs in dunning/spec.go lists every
// event).
const (
	EventDocumentReady = "dunning.document.ready"
	EventExportReady   = "dunning.export.ready"
)

// resourceBlobLimit is the largest file resources/read answers as a blob:
// a larger one reads as its description, to download over REST.
const resourceBlobLimit = 5 << 20

// fileJSON is how a tool, a route and a resource describe a document or
// an export: never its bytes, which are at download_path.
type fileJSON struct {
	ID           string `json:"id"`
	Kind         string `json:"kind,omitempty"`
	Resource     string `json:"resource,omitempty"`
	SubjectID    string `json:"subject_id,omitempty"`
	Status       string `json:"status"`
	ContentType  string `json:"content_type"`
	ByteSize     *int64 `json:"byte_size"`
	Filename     string `json:"filename"`
	DownloadPath string `json:"download_path"`
	ResourceURI  string `json:"resource_uri"`
	AmountsOn    string `json:"amounts_on"`
	RowCount     *int64 `json:"row_count,omitempty"`
	Separator    string `json:"separator,omitempty"`
	// FormulaEscaping is an export's: quote, or none (unsafe raw cells).
	FormulaEscaping string     `json:"formula_escaping,omitempty"`
	Filters         any        `json:"filters,omitempty"`
	Error           *string    `json:"error"`
	CreatedAt       time.Time  `json:"created_at"`
	ReadyAt         *time.Time `json:"ready_at"`
	Note            string     `json:"note"`
}

// fileNote says what to do next with a file in status: read it again
// while it is generating (getTool), download or read the resource once
// ready, ask again when it failed.
func fileNote(status, what, getTool, createHint string) string {
	switch status {
	case FileGenerating:
		return "The " + what + " is being generated: byte_size is null until it is ready. Read it again with " + getTool +
			" until status is ready. Tools never return its bytes: download it at download_path (REST only) or read resource_uri."
	case FileReady:
		return "The " + what + " is ready. Tools never return its bytes: download it at download_path (REST only, with an attachment Content-Disposition) or read resource_uri, whose contents are the file itself."
	default:
		return "Generating the " + what + " failed (see error): " + createHint
	}
}

func showDocument(d documentRow) fileJSON {
	f := fileJSON{ID: d.ID, Kind: d.Kind, SubjectID: d.SubjectID, Status: d.Status, ContentType: d.ContentType, ByteSize: d.ByteSize,
		Filename: d.Filename, DownloadPath: ledger.APIBase + "/documents/" + d.ID + "/download", ResourceURI: "kobana://dunning/documents/" + d.ID,
		AmountsOn: d.AmountsOn, Error: d.Error, CreatedAt: d.CreatedAt, ReadyAt: d.ReadyAt}
	if d.Status != FileReady {
		f.ByteSize = nil
	}
	f.Note = fileNote(d.Status, "document", "dunning_documents_get", "ask for the document again.")
	return f
}

// documentAnswer is the document as the API answers it, with status.
func (s *Service) documentAnswer(ctx context.Context, orgID, id string, status int) (*rest.Response, error) {
	d, err := getDocument(ctx, s.DB, orgID, id)
	if err != nil {
		return nil, ledger.NotFoundAs(err, "document")
	}
	return &rest.Response{Status: status, Body: map[string]any{"data": showDocument(d)}}, nil
}

// errNotFound reports whether err is a missing row.
func errNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
