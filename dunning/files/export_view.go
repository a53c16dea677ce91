package files

import "github.com/kobana/kobana-mcp/dunning/ledger"

// showExport is e as a tool, a route, a resource and the
// dunning.export.ready event describe it: never its bytes.
func showExport(e exportRow) fileJSON {
	f := fileJSON{ID: e.ID, Resource: e.Resource, Status: e.Status, ContentType: csvContentType, ByteSize: e.ByteSize, Filename: e.filename(),
		DownloadPath: ledger.APIBase + "/exports/" + e.ID + "/download", ResourceURI: "kobana://dunning/exports/" + e.ID, AmountsOn: e.AmountsOn,
		Separator: e.Separator, FormulaEscaping: e.FormulaEscaping, Error: e.Error, CreatedAt: e.CreatedAt, ReadyAt: e.ReadyAt}
	if filters, err := e.filters(); err == nil {
		f.Filters = filters
	}
	if e.Status == FileReady {
		f.RowCount = e.RowCount
	} else {
		f.ByteSize = nil
	}
	f.Note = fileNote(e.Status, "export", "dunning_exports_get", "ask for the export again.")
	return f
}
