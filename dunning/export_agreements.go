package dunning

import (
	"context"

	"github.com/kobana/kobana-mcp/dunning/calendar"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// agreementsExportAvailable says whether POST /v1/exports accepts
// resource agreements. The agreements are built in their own branch of
// this work: until it is merged there is no agreement table to read, and
// the export is UNPROCESSABLE "not yet available". The agreements branch
// sets it true, gives exportSources[ExportAgreements] its header, and
// fills exportAgreementsRows (docs/decisions.md "Dunning: documents and
// exports").
const agreementsExportAvailable = false

// exportAgreementsRows emits one CSV record per agreement the filters
// (status, debtor_id) select, in the agreements list's order, through
// emit, with the cells formatted by cells — the same contract as
// writeCharges (streamRows reads the rows). Until the agreements exist it refuses.
func exportAgreementsRows(ctx context.Context, db *store.DB, orgID string, f exportFilters, st Settings, on calendar.Date, cells exportCells, emit func([]string) error) error {
	_, _, _, _, _, _, _, _ = ctx, db, orgID, f, st, on, cells, emit
	return rest.Unprocessable("exports of agreements are not yet available")
}
