package dunning

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// A charge's barcode of an arrecadação slip must name a segment of
// FEBRABAN's table (1–7, 9): segments 0 and 8 are refused even when every
// check digit is right; a valid segment is kept (docs/decisions.md
// "Boletos").
func TestChargeBarcodeSegment(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria da Silva", cpfOK)
		for _, seg := range []byte{'0', '8'} {
			bc := braziltest.CollectionBarcode(t, seg, '8', 1000, "00010000000000000000000000000")
			for _, form := range []string{bc, braziltest.CollectionLine(bc)} {
				body := obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01", "barcode": form}
				fields, _ := ce.fails(ce.Member, 422, "VALIDATION_ERROR", "POST", "/v1/charges", body)
				wantFields(t, fields, "barcode")
				if _, out := ce.call(ce.Member, "POST", "/v1/charges", body); !strings.Contains(fmt.Sprint(out), "segment "+string(seg)) {
					t.Errorf("segment %c: %v", seg, out)
				}
			}
		}
		bc := braziltest.CollectionBarcode(t, '6', '8', 1000, "00010000000000000000000000000")
		if got := ce.charge(obj{"debtor_id": "maria", "amount": 10, "due_date": "2026-04-01", "barcode": bc}); got["barcode"] == nil {
			t.Errorf("segment 6 refused: %v", got)
		}
	})
}
