package dunning

import (
	"fmt"
	"testing"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestListingTotalsOnEveryPage: a numbered listing's meta.total (charges,
// debtors, agreements) is how many rows match on its first, full, short
// and empty pages and past the end, whether the page proves it (a short
// or empty first page, restkit.TotalFromPage), the counters answer it or
// it is counted — and each page holds the rows it should. On both engines.
func TestListingTotalsOnEveryPage(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		e := newCoreEnv(t, db)
		page := func(path string) (int, int) {
			t.Helper()
			code, out := e.call(e.Owner, "GET", path, nil)
			if _, ok := out["data"].([]any); code != 200 || !ok {
				t.Fatalf("%s: %d %v", path, code, out)
			}
			return len(out["data"].([]any)), int(out["meta"].(obj)["total"].(float64))
		}
		want := func(path string, rows, total int) {
			t.Helper()
			if r, n := page(path); r != rows || n != total {
				t.Errorf("%s: %d rows, meta.total %d; want %d rows of %d", path, r, n, rows, total)
			}
		}
		// Nothing yet: every kind of listing answers none.
		for _, p := range []string{"/v1/charges", "/v1/charges?page=2", "/v1/charges?q=mensal", "/v1/charges?debtor_id=maria&page=3",
			"/v1/debtors", "/v1/debtors?q=souza", "/v1/debtors?q=souza&page=2", "/v1/agreements", "/v1/agreements?page=4"} {
			want(p, 0, 0)
		}
		e.debtor("maria", "Maria Souza", cpfOK)
		e.debtor("jose", "José Souza", "11144477735")
		e.debtor("ana", "Ana Lima", "52998224725")
		for i := range 7 {
			e.charge(obj{"debtor_id": "maria", "external_id": fmt.Sprintf("m%d", i), "amount": 100 + i, "due_date": "2026-03-20", "description": "Mensalidade"})
		}
		e.charge(obj{"debtor_id": "jose", "external_id": "j0", "amount": 50, "due_date": "2026-03-20", "description": "Taxa"})
		for _, c := range []struct {
			path        string
			rows, total int
		}{
			// The counters' path (status and archiving only).
			{"/v1/charges?per_page=3", 3, 8},
			{"/v1/charges?per_page=3&page=3", 2, 8},
			{"/v1/charges?per_page=3&page=4", 0, 8},
			{"/v1/charges?per_page=10", 8, 8},
			{"/v1/charges?status=canceled", 0, 0},
			{"/v1/charges?status=canceled&page=2", 0, 0},
			// Counted, unless the page proves it.
			{"/v1/charges?debtor_id=maria&per_page=3", 3, 7},
			{"/v1/charges?debtor_id=maria&per_page=3&page=2", 3, 7},
			{"/v1/charges?debtor_id=maria&per_page=3&page=3", 1, 7},
			{"/v1/charges?debtor_id=maria&per_page=3&page=4", 0, 7},
			{"/v1/charges?debtor_id=maria&per_page=7", 7, 7},
			{"/v1/charges?debtor_id=maria&per_page=8", 7, 7},
			{"/v1/charges?q=taxa", 1, 1},
			{"/v1/charges?q=taxa&page=2", 0, 1},
			{"/v1/charges?q=nada", 0, 0},
			{"/v1/debtors?q=souza&per_page=1", 1, 2},
			{"/v1/debtors?q=souza&per_page=1&page=2", 1, 2},
			{"/v1/debtors?q=souza&per_page=1&page=3", 0, 2},
			{"/v1/debtors?q=souza&per_page=5", 2, 2},
			{"/v1/debtors?per_page=2&page=2", 1, 3},
		} {
			want(c.path, c.rows, c.total)
		}
		// Agreements, counted unless the page proves it.
		e.ok(201, "POST", "/v1/agreements", obj{"debtor_id": "jose", "charge_ids": []string{"j0"}, "installments": 2})
		want("/v1/agreements", 1, 1)
		want("/v1/agreements?per_page=1", 1, 1)
		want("/v1/agreements?per_page=1&page=2", 0, 1)
	})
}
