package dunning

import (
	"context"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestLedgerMigrationOnPopulatedData: 00285 applies over charges and
// payments as the schema before it held them — a charge partially paid,
// one paid, one overdue untouched, one pending — and every stored charge
// computes the same open and updated amounts after it as before;
// payments from before read as applied to the principal (the rule then),
// the settings default to interest_first, and the step migrates down.
func TestLedgerMigrationOnPopulatedData(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := storetest.URL(t, engine)
			open := func() *store.DB {
				db, err := store.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = db.Close() })
				return db
			}
			db := open()
			if _, err := db.MigrateTo(ctx, 282, Migrations); err != nil {
				t.Fatal(err)
			}
			org, err := accounts.New(db, accounts.Options{}).CreateOrganization(ctx, "Credora")
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			if _, err := db.Exec(ctx, `INSERT INTO dunning_debtors (id, organization_id, external_id, name, document, person_kind, emails, phones, status, created_at, updated_at)
				VALUES ('d1', ?, 'maria', 'Maria', '52998224725', 'natural', '[]', '[]', 'active', ?, ?)`, org.ID, now, now); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(ctx, `INSERT INTO dunning_settings (organization_id, timezone, quiet_start, quiet_end, grace_days, channels, company_fine_cap,
				closed_days, prior_notice_days, agreement_max_discount, agreement_grace_days, state, city, company_interest_cap, updated_at)
				VALUES (?, 'America/Sao_Paulo', '20:00', '08:00', 0, '{}', 100000, '[]', 10, 300000, 5, '', '', 10000, ?)`, org.ID, now); err != nil {
				t.Fatal(err)
			}
			charges := []struct {
				id, status string
				amount     money.Cents
				open       money.Cents
				due        string
			}{
				{"partial", "overdue", 100000, 60000, "2026-02-10"},
				{"paid", "paid", 50000, 0, "2026-02-10"},
				{"late", "overdue", 100000, 100000, "2026-01-10"},
				{"ontime", "pending", 30000, 30000, "2026-04-10"},
			}
			for _, c := range charges {
				if _, err := db.Exec(ctx, `INSERT INTO dunning_charges (id, organization_id, debtor_id, external_id, amount_cents, open_amount_cents, due_date,
					description, fine, interest, origin, tags, custom_data, status, created_at, updated_at)
					VALUES (?, ?, 'd1', ?, ?, ?, ?, '', 20000, 10000, 'external', '[]', '{}', ?, ?, ?)`,
					c.id, org.ID, c.id, int64(c.amount), int64(c.open), c.due, c.status, now, now); err != nil {
					t.Fatal(err)
				}
			}
			for i, p := range []struct {
				charge string
				amount money.Cents
			}{{"partial", 40000}, {"paid", 50000}} {
				if _, err := db.Exec(ctx, `INSERT INTO dunning_payments (id, organization_id, charge_id, amount_cents, paid_at, method, created_by, created_at)
					VALUES (?, ?, ?, ?, ?, 'pix', 'u1', ?)`, "p"+string(rune('0'+i)), org.ID, p.charge, int64(p.amount), now, now); err != nil {
					t.Fatal(err)
				}
			}
			on, _ := bankcalendar.ParseDate("2026-03-10")
			amounts := func(db *store.DB) map[string][2]money.Cents {
				st, err := ledger.LoadSettings(ctx, db, org.ID)
				if err != nil {
					t.Fatal(err)
				}
				out := map[string][2]money.Cents{}
				for _, c := range charges {
					ch, err := ledger.GetChargeWhere(ctx, db, `id = ?`, c.id)
					if err != nil {
						t.Fatal(err)
					}
					b, err := ledger.ChargeBreakdown(ch, st, on)
					if err != nil {
						t.Fatal(err)
					}
					out[c.id] = [2]money.Cents{b.Open, b.Updated}
				}
				return out
			}
			before := amounts(db)
			// 600 + 2 % + 1 % × 28/30 = 617,60; 1 000 + 20 + 1 % × 59/30 = 1 039,67.
			if before["partial"] != [2]money.Cents{60000, 61760} || before["late"] != [2]money.Cents{100000, 103967} ||
				before["paid"] != [2]money.Cents{0, 0} || before["ontime"] != [2]money.Cents{30000, 30000} {
				t.Fatalf("before: %v", before)
			}

			if _, err := db.Migrate(ctx, Migrations); err != nil {
				t.Fatal(err)
			}
			// The server starts after its migrations: new connections, whose
			// statements know the new columns.
			db = open()
			if after := amounts(db); len(after) != len(before) || after["partial"] != before["partial"] || after["late"] != before["late"] ||
				after["paid"] != before["paid"] || after["ontime"] != before["ontime"] {
				t.Fatalf("after the migration %v, before %v", after, before)
			}
			pays, err := ledger.ChargePayments(ctx, db, org.ID, "partial")
			if err != nil || len(pays) != 1 || pays[0].AppliedPrincipal != 40000 || pays[0].AppliedInterest != 0 || pays[0].AppliedFine != 0 {
				t.Fatalf("payments after: %+v %v", pays, err)
			}
			st, err := ledger.LoadSettings(ctx, db, org.ID)
			if err != nil || !st.Stored || st.PaymentImputation != "interest_first" {
				t.Fatalf("settings: %+v %v", st, err)
			}
			if err := db.MigrateDown(ctx, Migrations); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := db.Get(ctx, &n, `SELECT COUNT(*) FROM dunning_charges WHERE open_amount_cents > 0`); err != nil || n != 3 {
				t.Fatalf("after down: %d %v", n, err)
			}
		})
	}
}
