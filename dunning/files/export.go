package files

import (
	"context"
	"net/http"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Exports are CSV files of a listing — charges, debtors, notifications
// (and agreements once they exist) — with the same filters as the list
// routes. A request stores the export, generating, and enqueues its job in
// the same transaction; the job reads the rows one by one and writes
// the file into the database in parts as it goes (export_job.go), so
// neither it nor the download ever holds the whole file
// (docs/decisions.md "Dunning: documents and exports"). Every cell goes
// through platform/csvsafe: what a spreadsheet would run as a formula is
// written as text unless the request asked for formula_escaping none, by
// name (docs/decisions.md "Exports safe to open").

// Permissions on exports: members make them (an ordinary write that
// copies data out), every role reads and downloads them. Making one also
// needs the scope of what it exports (dunning.charges for charges…), so
// an export never shows what the token could not list.
var (
	exportsRead  = mcp.Requirement{Scopes: []string{"dunning.exports"}, Permission: identity.PermRead}
	exportsWrite = mcp.Requirement{Scopes: []string{"dunning.exports"}, Permission: identity.PermWrite}
)

// createExportIn asks for an export.
type createExportIn struct {
	Resource  string        `json:"resource" enum:"charges,debtors,notifications,agreements" jsonschema:"What to export: charges, debtors or notifications (agreements once the agreements exist; until then UNPROCESSABLE)."`
	Filters   exportFilters `json:"filters,omitempty" jsonschema:"The same filters as the resource's list route; a filter the resource has not is a VALIDATION_ERROR naming it."`
	Separator string        `json:"separator,omitempty" maxLength:"1" jsonschema:"',' (default): RFC 4180 with amounts as 1234.56 and dates as 2026-03-10; ';': for spreadsheets in Brazilian Portuguese, amounts as 1234,56 and dates as 10/03/2026."`
	// FormulaEscaping is how cells a spreadsheet would evaluate are
	// written (docs/decisions.md "Exports safe to open").
	FormulaEscaping string `json:"formula_escaping,omitempty" enum:"quote,none" jsonschema:"quote (default): a cell starting with = + - @ TAB or CR (after any leading spaces) is prefixed with a single quote, so a spreadsheet shows it as text and never runs it as a formula (OWASP CSV Injection); plain numbers stay numbers. none: every cell verbatim. UNSAFE: a debtor's name or a description can then run as a formula when the file is opened in a spreadsheet; only for a program that reads the CSV itself."`
}

type exportIDIn struct {
	ID string `json:"id" in:"path" jsonschema:"The export's id."`
}

// registerExports declares the export operations.
func registerExports(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_exports_create", Method: "POST", Path: "/exports", Tags: []string{"exports"},
		Title: "Export a listing as CSV",
		Summary: "Exports charges, debtors or notifications, with the same filters as their list routes, as a CSV file (RFC 4180, UTF-8 with a byte order mark so spreadsheets show accents; separator ';' for Brazilian spreadsheets). Charges carry their updated amount, fine and interest for today. A cell starting with = + - @ TAB or CR (a debtor's name, a description…) is prefixed with a single quote so a spreadsheet shows it as text and never runs it as a formula; formula_escaping none writes cells verbatim, which is UNSAFE to open in a spreadsheet. " +
			"Answers 202 with the export generating: read it with dunning_exports_get until status is ready. The answer describes the file and never holds its rows; each call makes a new export. Needs the scope of what it exports too (dunning.charges, dunning.debtors, dunning.notifications).",
		Requires: exportsWrite, Annotations: restkit.Write(false),
	}, s.exportsCreate)
	rest.Handle(api, rest.Operation{
		ID: "dunning_exports_get", Method: "GET", Path: "/exports/{id}", Tags: []string{"exports"},
		Title: "Get an export",
		Summary: "Describes an export: status generating, ready or failed (with error), row_count and byte_size once ready, content_type, download_path and resource_uri. " +
			"Never its rows: download them at download_path (REST only) or read the resource kobana://dunning/exports/{id}.",
		Requires: exportsRead, Annotations: restkit.ReadOnly(),
	}, s.exportsGet)
	rest.HandleRaw(api, rest.Operation{
		ID: "dunning_exports_download", Method: "GET", Path: "/exports/{id}/download", Tags: []string{"exports"},
		Title:    "Download an export",
		Summary:  "Downloads a ready export's CSV as an attachment (Content-Disposition with its file name), streamed part by part from the database. An export still generating is CONFLICT, a failed one UNPROCESSABLE. REST only: files never travel through MCP tools.",
		Requires: exportsRead, Annotations: restkit.ReadOnly(),
	}, func(w http.ResponseWriter, r *http.Request) {
		s.serveExport(api, w, r)
	})
}

// exportsCreate answers dunning_exports_create.
func (s *Service) exportsCreate(ctx context.Context, in *createExportIn) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	id, err := s.requestExport(ctx, t.OrgID, in)
	if err != nil {
		return nil, err
	}
	e, err := GetExport(ctx, s.DB, t.OrgID, id)
	if err != nil {
		return nil, err
	}
	return rest.Accepted(map[string]any{"data": showExport(e)}), nil
}

// exportsGet answers dunning_exports_get.
func (s *Service) exportsGet(ctx context.Context, in *exportIDIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, s.Tenancy, "export", func(t restkit.Tenant) (exportRow, error) {
		return GetExport(ctx, s.DB, t.OrgID, in.ID)
	}, showExport)
}

// requestExport checks an export's resource, filters and the caller's
// scope, and stores it with its job in one transaction.
func (s *Service) requestExport(ctx context.Context, orgID string, in *createExportIn) (string, error) {
	src, ok := exportSources[in.Resource]
	if !ok {
		return "", ledger.Invalid("resource", "must be charges, debtors, notifications or agreements")
	}
	if id := identity.From(ctx); id != nil && id.Scopes != nil && !id.HasScope(src.scope) {
		return "", rest.Forbidden("exporting " + in.Resource + " also needs the scope " + src.scope)
	}
	sep := in.Separator
	if sep == "" {
		sep = ","
	}
	if sep != "," && sep != ";" {
		return "", ledger.Invalid("separator", "must be ',' or ';'")
	}
	escaping := in.FormulaEscaping
	if escaping == "" {
		escaping = FormulaQuote
	}
	if escaping != FormulaQuote && escaping != FormulaNone {
		return "", ledger.Invalid("formula_escaping", "must be quote or none")
	}
	var id string
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		f, err := src.check(ctx, tx, orgID, in.Filters)
		if err != nil {
			return err
		}
		st, err := ledger.LoadSettings(ctx, tx, orgID)
		if err != nil {
			return err
		}
		now := s.Clock()
		id = store.NewID()
		if err := insertExport(ctx, tx, exportRow{ID: id, OrganizationID: orgID, Resource: in.Resource, FiltersJSON: ledger.MustJSON(f),
			Separator: sep, FormulaEscaping: escaping, Status: FileGenerating, AmountsOn: st.Today(now).String(), CreatedBy: notify.UserOf(ctx),
			CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		_, err = s.Jobs.EnqueueTx(ctx, tx, exportArgs{OrganizationID: orgID, ExportID: id}, nil)
		return err
	})
	return id, err
}
