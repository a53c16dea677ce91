package files

import (
	"context"
	"net/http"
	"strconv"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// RegisterFiles declares the documents, the exports and the creditor the
// documents print, and registers the jobs that make the files
// (docs/decisions.md "Dunning: documents and exports").
func RegisterFiles(b *productkit.Builder, api *rest.API, s *Service) {
	registerCreditor(api, s)
	registerDocuments(api, s)
	registerExports(api, s)
	b.Jobs(func(q *jobs.Queue) {
		jobs.AddWorker(q, &documentWorker{s: s})
		jobs.AddWorker(q, &exportWorker{s: s})
	})
}

type statementIn struct {
	ID string `json:"id" in:"path" jsonschema:"The debtor's id or external_id."`
}

type settlementLetterIn struct {
	ID string `json:"id" in:"path" jsonschema:"The paid charge's id or external_id."`
}

type documentIDIn struct {
	ID string `json:"id" in:"path" jsonschema:"The document's id."`
}

// registerDocuments declares the operations that make documents, the
// document's status and its download.
func registerDocuments(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_debtors_statement", Method: "POST", Path: "/debtors/{id}/statement", Tags: []string{"documents"},
		Title: "Make a debtor statement",
		Summary: "Makes the debtor's statement (extrato de débitos), a PDF in Portuguese listing every open charge (pending or overdue) with its open amount, fine, interest and updated amount on today's date in the organization's timezone, and their total, under the creditor's name and CNPJ; when the creditor has a Pix key, each charge's Pix QR code and copia e cola for that updated amount. A statement lists at most " + strconv.Itoa(MaxDocumentRows) + " charges: a debtor with more is VALIDATION_ERROR, and its charges are exported as CSV instead (dunning_exports_create, resource charges, filters.debtor_id). " +
			"Answers 202 with the document generating: read it with dunning_documents_get until status is ready. The answer describes the file and never holds its bytes; each call makes a new document.",
		Requires: documentsWrite, Annotations: restkit.Write(false),
	}, s.debtorsStatement)
	rest.Handle(api, rest.Operation{
		ID: "dunning_charges_settlement_letter", Method: "POST", Path: "/charges/{id}/settlement-letter", Tags: []string{"documents"},
		Title: "Make a settlement letter",
		Summary: "Makes the settlement letter (carta de quitação e anuência) of a paid charge: a PDF in Portuguese declaring the debt settled, which also serves as the creditor's consent to cancel a protest and remove a credit-bureau record. Only a paid charge: any other is UNPROCESSABLE. " +
			"Answers 202 with the document generating: read it with dunning_documents_get until status is ready. The answer describes the file and never holds its bytes; each call makes a new document.",
		Requires: documentsWrite, Annotations: restkit.Write(false),
	}, s.chargesSettlementLetter)
	rest.Handle(api, rest.Operation{
		ID: "dunning_documents_get", Method: "GET", Path: "/documents/{id}", Tags: []string{"documents"},
		Title: "Get a document",
		Summary: "Describes a document (statement, settlement letter, agreement term): status generating, ready or failed (with error), content_type, byte_size once ready, download_path and resource_uri. " +
			"Never its bytes: download them at download_path (REST only) or read the resource kobana://dunning/documents/{id}.",
		Requires: documentsRead, Annotations: restkit.ReadOnly(),
	}, s.documentsGet)
	rest.HandleRaw(api, rest.Operation{
		ID: "dunning_documents_download", Method: "GET", Path: "/documents/{id}/download", Tags: []string{"documents"},
		Title:    "Download a document",
		Summary:  "Downloads a ready document's PDF as an attachment (Content-Disposition with its file name). A document still generating is CONFLICT, a failed one UNPROCESSABLE. REST only: files never travel through MCP tools.",
		Requires: documentsRead, Annotations: restkit.ReadOnly(),
	}, func(w http.ResponseWriter, r *http.Request) {
		s.serveDocument(api, w, r)
	})
}

// debtorsStatement answers dunning_debtors_statement.
func (s *Service) debtorsStatement(ctx context.Context, in *statementIn) (*rest.Response, error) {
	return s.makeDocument(ctx, DocumentStatement, in.ID)
}

// chargesSettlementLetter answers dunning_charges_settlement_letter.
func (s *Service) chargesSettlementLetter(ctx context.Context, in *settlementLetterIn) (*rest.Response, error) {
	return s.makeDocument(ctx, DocumentSettlementLetter, in.ID)
}

// documentsGet answers dunning_documents_get.
func (s *Service) documentsGet(ctx context.Context, in *documentIDIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	return s.documentAnswer(ctx, t.OrgID, in.ID, http.StatusOK)
}

// makeDocument asks for a document of kind about ref (a debtor's or a
// charge's id or external_id) and answers it, 202, generating.
func (s *Service) makeDocument(ctx context.Context, kind, ref string) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var id string
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		id, err = s.RequestDocumentTx(ctx, tx, t.OrgID, kind, ref)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.documentAnswer(ctx, t.OrgID, id, http.StatusAccepted)
}

// serveDocument answers a document's download.
func (s *Service) serveDocument(api *rest.API, w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	err := func() error {
		t, err := s.Tenant(ctx)
		if err != nil {
			return err
		}
		d, err := getDocument(ctx, s.DB, t.OrgID, r.PathValue("id"))
		if err != nil {
			return ledger.NotFoundAs(err, "document")
		}
		if d.Status != FileReady {
			return fileNotReady("document", d.Status, d.Error)
		}
		content, err := documentContent(ctx, s.DB, t.OrgID, d.ID)
		if err != nil {
			return ledger.NotFoundAs(err, "document")
		}
		attachment(w, d.ContentType, d.Filename, int64(len(content)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(content)
		return nil
	}()
	if err != nil {
		s.writeRawError(api, w, r, err)
	}
}
