package dunning

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/dunning/regua"

	dto "github.com/prometheus/client_model/go"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// wantCountsMatch fails unless every counter row of the organization is
// what COUNT(*) over its rows answers, and the listings' meta.total is
// COUNT(*) for the filters served by the counters.
func wantCountsMatch(t *testing.T, ce *dunEnv, db *store.DB, orgID string) {
	t.Helper()
	ctx := context.Background()
	type row = counterRow
	counted := chargeCounterRows(t, db, orgID, "n")
	real := chargeRowsBy(t, db, orgID, "CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END", "status", "COUNT(*)", "TRUE")
	if fmt.Sprint(counted) != fmt.Sprint(real) {
		t.Fatalf("charge counters %v, COUNT(*) %v", counted, real)
	}
	var dc, dr []row
	if err := db.Select(ctx, &dc, `SELECT 0 AS archived, status, CAST(n AS BIGINT) AS n FROM dunning_debtor_counts WHERE organization_id = ? AND n <> 0 ORDER BY status`, orgID); err != nil {
		t.Fatal(err)
	}
	if err := db.Select(ctx, &dr, `SELECT 0 AS archived, status, COUNT(*) AS n FROM dunning_debtors WHERE organization_id = ? GROUP BY status ORDER BY status`, orgID); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(dc) != fmt.Sprint(dr) {
		t.Fatalf("debtor counters %v, COUNT(*) %v", dc, dr)
	}
	if ce == nil {
		return
	}
	wantAmountsMatch(t, db, orgID)
	for query, count := range map[string]string{
		"/v1/charges":                              `archived_at IS NULL`,
		"/v1/charges?archived=true":                `archived_at IS NOT NULL`,
		"/v1/charges?status=overdue":               `archived_at IS NULL AND status = 'overdue'`,
		"/v1/charges?status=pending,in_agreement":  `archived_at IS NULL AND status IN ('pending', 'in_agreement')`,
		"/v1/charges?status=paid&due_to=2026-03-1": ``,
		"/v1/debtors":                              `status = 'active'`,
		"/v1/debtors?status=archived":              `status = 'archived'`,
	} {
		if count == "" {
			continue
		}
		table := "dunning_charges"
		if query[:11] == "/v1/debtors" {
			table = "dunning_debtors"
		}
		var want int
		if err := db.Get(ctx, &want, `SELECT COUNT(*) FROM `+table+` WHERE organization_id = ? AND `+count, orgID); err != nil {
			t.Fatal(err)
		}
		_, out := ce.call(ce.Owner, "GET", query, nil)
		if got := out["meta"].(obj)["total"]; got != float64(want) {
			t.Fatalf("%s: meta.total %v, COUNT(*) %d", query, got, want)
		}
	}
}

// TestListingCountsMatch: after every kind of write that creates a charge
// or debtor or changes its status or archiving — create (pending, overdue
// at once), update of the due date, payment in part and in full, cancel,
// write-off, archive, the overdue sweep, an agreement accepted (charges
// in_agreement, installments created), a debtor archived and upserted
// back — the counters equal COUNT(*), on both engines.
func TestListingCountsMatch(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		org := ee.Mine.ID
		check := func(what string) {
			t.Helper()
			t.Run(what, func(t *testing.T) { wantCountsMatch(t, ee, db, org) })
		}
		ee.debtor("maria", "Maria da Silva", cpfOK)
		ee.debtor("jose", "José Souza", "11144477735")
		check("debtors created")
		var ids []string
		for i, due := range []string{"2026-02-20", "2026-02-25", "2026-03-20", "2026-03-25", "2026-04-01", "2026-03-11"} {
			c := ee.charge(obj{"debtor_id": "maria", "external_id": fmt.Sprintf("c%d", i), "amount": 100, "due_date": due, "description": "Mensalidade"})
			ids = append(ids, c["id"].(string))
		}
		check("charges created")
		ee.ok(200, "PATCH", "/v1/charges/c2", obj{"due_date": "2026-03-30"})
		ee.ok(201, "POST", "/v1/charges/c3/payments", obj{"amount": 10})
		ee.ok(201, "POST", "/v1/charges/c3/payments", obj{"amount": 90})
		check("paid")
		ee.ok(200, "POST", "/v1/charges/c4/cancel", nil)
		ee.ok(200, "POST", "/v1/charges/c1/cancel", obj{"write_off": true})
		ee.ok(200, "POST", "/v1/charges/c4/archive", nil)
		check("canceled, written off, archived")
		// The sweep turns c5 (due the 11th) overdue two days later.
		ee.clock.Set(coreStart.AddDate(0, 0, 3))
		if _, err := (&regua.Notifier{Notifier: &notify.Notifier{Service: ee.svc.Service.Service}}).Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
		check("swept")
		ag := ee.ok(201, "POST", "/v1/agreements", obj{"debtor_id": "maria", "charge_ids": []string{"c0", "c5"}, "installments": 3})
		ee.ok(200, "POST", "/v1/agreements/"+ag["id"].(string)+"/accept", obj{})
		check("agreement accepted")
		ee.ok(200, "POST", "/v1/debtors/jose/archive", nil)
		check("debtor archived")
		ee.debtor("jose", "José Souza", "11144477735")
		check("debtor upserted back")
		// All of that went through the ledger: the alarm finds nothing.
		if n, err := ee.svc.MendCounts(context.Background()); err != nil || n != 0 ||
			gaugeValue(t, ee.svc.CountMismatches.WithLabelValues("dunning_charges")) != 0 {
			t.Fatalf("the count mender found %d mismatches after the API's own writes (%v)", n, err)
		}
	})
}

// TestListingCountsConcurrent: writers at once — creating charges, paying
// and canceling them, archiving — leave the counters equal to COUNT(*) on
// both engines (PostgreSQL's transactions run truly in parallel; SQLite's
// one writer serializes them).
func TestListingCountsConcurrent(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ce := newCoreEnv(t, db)
		ce.debtor("maria", "Maria da Silva", cpfOK)
		const writers, each = 6, 8
		var wg sync.WaitGroup
		errs := make(chan error, writers*each*3)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					ext := fmt.Sprintf("w%d-%d", w, i)
					code, text := ce.Do(ce.Owner, "POST", "/v1/charges", obj{"debtor_id": "maria", "external_id": ext, "amount": 50, "due_date": "2026-03-20"})
					if code != 201 {
						errs <- fmt.Errorf("create %s: %d %s", ext, code, text)
						continue
					}
					var code2 int
					switch i % 4 {
					case 0:
						code2, text = ce.Do(ce.Owner, "POST", "/v1/charges/"+ext+"/payments", obj{"amount": 50})
					case 1:
						code2, text = ce.Do(ce.Admin, "POST", "/v1/charges/"+ext+"/cancel", nil)
					case 2:
						code2, text = ce.Do(ce.Admin, "POST", "/v1/charges/"+ext+"/archive", nil)
					default:
						continue
					}
					if code2 != 200 && code2 != 201 {
						errs <- fmt.Errorf("write %s: %d %s", ext, code2, text)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		wantCountsMatch(t, ce, db, ce.Mine.ID)
		var n int
		_ = db.Get(context.Background(), &n, `SELECT COUNT(*) FROM dunning_charges WHERE organization_id = ?`, ce.Mine.ID)
		if n != writers*each {
			t.Fatalf("%d charges, want %d", n, writers*each)
		}
	})
}

// TestCountMender: rows whose status changed behind the counters' back (SQL
// by hand, a write that forgot its sync, rows loaded in bulk with no count
// at all) make the totals wrong until the mender runs; it counts them as
// they are, and a run with nothing to mend changes nothing. Its reads use
// the partial indexes of exactly those rows (SQLite's plan).
func TestCountMender(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		ee := newEscEnv(t, db, 0)
		ctx := context.Background()
		org := ee.Mine.ID
		ee.debtor("maria", "Maria da Silva", cpfOK)
		ee.debtor("jose", "José Souza", "11144477735")
		for i, due := range []string{"2026-02-20", "2026-03-20", "2026-03-25"} {
			ee.charge(obj{"debtor_id": "maria", "external_id": fmt.Sprintf("m%d", i), "amount": 100, "due_date": due, "description": "Mensalidade"})
		}
		wantCountsMatch(t, ee, db, org)
		if n, err := ee.svc.MendCounts(ctx); err != nil || n != 0 {
			t.Fatalf("nothing to mend: %d %v", n, err)
		}
		// Behind the counters' back: a status changed, an archiving, a debtor's
		// status, and a charge inserted with no count at all.
		for _, q := range []string{
			`UPDATE dunning_charges SET status = 'canceled' WHERE external_id = 'm0'`,
			`UPDATE dunning_charges SET archived_at = created_at WHERE external_id = 'm1'`,
			`UPDATE dunning_debtors SET status = 'archived' WHERE external_id = 'jose'`,
			`UPDATE dunning_charges SET counted_status = NULL, counted_archived = NULL WHERE external_id = 'm2'`,
		} {
			if _, err := db.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec(ctx, `UPDATE dunning_charge_counts SET n = n - 1 WHERE organization_id = ? AND archived = 0 AND status = 'pending'`, org); err != nil {
			t.Fatal(err) // m2 "loaded" uncounted: take it out of the counters too
		}
		var total int
		if err := db.Get(ctx, &total, `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM dunning_charge_counts WHERE organization_id = ? AND archived = 0 AND status = 'canceled'`, org); err != nil || total != 0 {
			t.Fatalf("the hand-made change should not be counted yet: %d %v", total, err)
		}
		n, err := ee.svc.MendCounts(ctx)
		if err != nil || n != 4 {
			t.Fatalf("mended %d rows (%v), want 4", n, err)
		}
		// The alarm: what it found, by table, as kobana_dunning_count_mismatches.
		gauge := func(table string) float64 { return gaugeValue(t, ee.svc.CountMismatches.WithLabelValues(table)) }
		if gauge("dunning_charges") != 3 || gauge("dunning_debtors") != 1 {
			t.Fatalf("mismatches reported: charges %v, debtors %v", gauge("dunning_charges"), gauge("dunning_debtors"))
		}
		wantCountsMatch(t, nil, db, org)
		if n, err := ee.svc.MendCounts(ctx); err != nil || n != 0 || gauge("dunning_charges") != 0 || gauge("dunning_debtors") != 0 {
			t.Fatalf("a second run mended %d (%v)", n, err)
		}
		if db.Dialect() == store.SQLite {
			for index, where := range map[string]string{"dunning_charges_miscounted": ledger.MiscountedCharges, "dunning_debtors_miscounted": ledger.MiscountedDebtors} {
				table := strings.TrimSuffix(index, "_miscounted")
				if plan := storetest.Explain(t, db, `SELECT id FROM `+table+` WHERE `+where+` ORDER BY id LIMIT 500`); !strings.Contains(plan, index) {
					t.Errorf("the mender's read of %s does not use %s:\n%s", table, index, plan)
				}
			}
		}
	})
}

// gaugeValue is what a gauge holds now.
func gaugeValue(t *testing.T, g interface{ Write(*dto.Metric) error }) float64 {
	t.Helper()
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

// wantAmountsMatch fails unless every charge counter row's cents is the
// SUM(open_amount_cents) of its charges (00297), as dunning_me reads them.
// The count mender's test (rows changed by hand, counters adjusted by
// hand for n only) does not call it: the mender mends keys, not amounts.
func wantAmountsMatch(t *testing.T, db *store.DB, orgID string) {
	t.Helper()
	countedCents := chargeCounterRows(t, db, orgID, "cents")
	realCents := chargeRowsBy(t, db, orgID, "CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END", "status", "CAST(SUM(open_amount_cents) AS BIGINT)", "TRUE")
	if fmt.Sprint(countedCents) != fmt.Sprint(realCents) {
		t.Fatalf("charge counters' amounts %v, SUM(open_amount_cents) %v", countedCents, realCents)
	}
}

// counterRow is one key of a charge counter (or of the rows it counts)
// and its value: a count or an amount in cents.
type counterRow struct {
	Archived int    `db:"archived"`
	Status   string `db:"status"`
	N        int64  `db:"n"`
}

// chargeCounterRows is the organization's charge counter rows that count
// something, with column (n or cents) as the value, in key order.
func chargeCounterRows(t *testing.T, db *store.DB, orgID, column string) []counterRow {
	t.Helper()
	var out []counterRow
	if err := db.Select(context.Background(), &out, `SELECT archived, status, CAST(`+column+` AS BIGINT) AS n FROM dunning_charge_counts
		WHERE organization_id = ? AND n <> 0 ORDER BY archived, status`, orgID); err != nil {
		t.Fatal(err)
	}
	return out
}

// chargeRowsBy is value over the organization's charges where cond holds,
// grouped by the archived and status expressions given, in key order: what
// the counters should say.
func chargeRowsBy(t *testing.T, db *store.DB, orgID, archived, status, value, cond string) []counterRow {
	t.Helper()
	var out []counterRow
	if err := db.Select(context.Background(), &out, `SELECT `+archived+` AS archived, `+status+` AS status, `+value+` AS n
		FROM dunning_charges WHERE organization_id = ? AND `+cond+` GROUP BY `+archived+`, `+status+` ORDER BY archived, status`, orgID); err != nil {
		t.Fatal(err)
	}
	return out
}
