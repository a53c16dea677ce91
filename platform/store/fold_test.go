package store_test

import (
	"context"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// lower() and upper() change accented letters the same way on both
// engines, so a case-insensitive search finds the same rows.
func TestCaseMappingIsTheSameOnBothEngines(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var got struct {
			Lower string  `db:"l"`
			Upper string  `db:"u"`
			Null  *string `db:"n"`
			Match int     `db:"m"`
		}
		if err := db.Get(ctx, &got, `SELECT lower(?) AS l, upper(?) AS u, lower(NULL) AS n,
			CASE WHEN lower(?) LIKE ? THEN 1 ELSE 0 END AS m`,
			"ÉRICA Ção ÑANDÚ", "érica ção ñandú", "JOÃO DA CONCEIÇÃO", "%conceição%"); err != nil {
			t.Fatal(err)
		}
		if got.Lower != "érica ção ñandú" || got.Upper != "ÉRICA ÇÃO ÑANDÚ" || got.Null != nil || got.Match != 1 {
			t.Errorf("%s: %+v", db.Dialect(), got)
		}
	})
}
