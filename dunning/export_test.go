package dunning

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// readCSV checks the byte order mark and parses an export with sep.
func readCSV(t *testing.T, data []byte, sep rune) [][]string {
	t.Helper()
	if !bytes.HasPrefix(data, []byte(files.UTF8BOM)) {
		t.Fatalf("no byte order mark: %q", data[:min(len(data), 10)])
	}
	r := csv.NewReader(bytes.NewReader(data[len(files.UTF8BOM):]))
	r.Comma = sep
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// csvColumn is a record's value under header name.
func csvColumn(t *testing.T, header, rec []string, name string) string {
	t.Helper()
	for i, h := range header {
		if h == name {
			return rec[i]
		}
	}
	t.Fatalf("no column %s in %v", name, header)
	return ""
}

// TestExports: charges, debtors and notifications export with their
// lists' filters as CSV made by a job (202, then ready with its row count
// and dunning.export.ready), UTF-8 with a byte order mark, accents intact,
// ',' with 1234.56 and ISO dates or ';' with 1234,56 and Brazilian dates;
// a filter the resource has not, agreements and a missing scope are
// refused; another organization sees nothing; the resource reads as the
// CSV.
func TestExports(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		ctx := context.Background()
		fe.debtor("joao", "João da Conceição Araújo", cpfOK)
		fe.debtor("acai", "Açaí & Cia; \"Ltda\"", cnpjOK)
		late := fe.charge(obj{"debtor_id": "joao", "external_id": "cota-fev", "description": "Cota de fevereiro, com multa", "amount": 1234.56,
			"due_date": "2026-02-10", "fine_percent": 2, "interest_percent": 1})
		fe.charge(obj{"debtor_id": "acai", "external_id": "nf-7", "description": "Nota fiscal nº 7\nsegunda linha", "amount": 99.9, "due_date": "2026-03-20"})
		fe.charge(obj{"debtor_id": "acai", "external_id": "nf-8", "description": "Cancelada", "amount": 10, "due_date": "2026-03-21"})
		fe.ok(200, "POST", "/v1/charges/nf-8/cancel", nil)

		// Charges, ';' for Brazilian spreadsheets, open ones by due date.
		exp := fe.ok(202, "POST", "/v1/exports", obj{"resource": "charges", "filters": obj{"status": "pending,overdue"}, "separator": ";"})
		id := exp["id"].(string)
		if exp["status"] != files.FileGenerating || exp["byte_size"] != nil || exp["download_path"] != "/v1/exports/"+id+"/download" ||
			!strings.HasPrefix(exp["content_type"].(string), "text/csv") || !strings.Contains(exp["note"].(string), "dunning_exports_get") {
			t.Fatalf("export asked: %v", exp)
		}
		exp = fe.waitFile("/v1/exports/" + id)
		if exp["status"] != files.FileReady || num(exp, "row_count") != 2 {
			t.Fatalf("export: %v", exp)
		}
		code, ctype, disp, body := fe.download("/v1/exports/" + id + "/download")
		if code != 200 || !strings.HasPrefix(ctype, "text/csv") || disp != "attachment; filename=export-charges-2026-03-10.csv" || int64(len(body)) != int64(num(exp, "byte_size")) {
			t.Fatalf("download: %d %q %q %d", code, ctype, disp, len(body))
		}
		if !bytes.Contains(body, []byte("\r\n")) {
			t.Error("records do not end in CRLF (RFC 4180)")
		}
		recs := readCSV(t, body, ';')
		h := recs[0]
		if len(recs) != 3 || csvColumn(t, h, recs[1], "external_id") != "cota-fev" || csvColumn(t, h, recs[2], "external_id") != "nf-7" {
			t.Fatalf("rows: %v", recs)
		}
		lateNow := fe.ok(200, "GET", "/v1/charges/"+late["id"].(string), nil)
		for name, want := range map[string]string{"debtor_name": "João da Conceição Araújo", "debtor_document": cpfOK, "description": "Cota de fevereiro, com multa",
			"due_date": "10/02/2026", "amount": "1234,56", "fine_amount": "24,69", "interest_amount": "11,52", "updated_amount": "1270,77",
			"days_late": "28", "amounts_on": "10/03/2026", "status": "overdue"} {
			if got := csvColumn(t, h, recs[1], name); got != want {
				t.Errorf("%s = %q, want %q", name, got, want)
			}
		}
		if num(lateNow, "updated_amount") != 1270.77 {
			t.Fatalf("the API's updated amount: %v", lateNow)
		}
		if got := csvColumn(t, h, recs[2], "debtor_name"); got != "Açaí & Cia; \"Ltda\"" {
			t.Errorf("quoted name: %q", got)
		}
		if got := csvColumn(t, h, recs[2], "description"); got != "Nota fiscal nº 7\nsegunda linha" {
			t.Errorf("multi-line description: %q", got)
		}
		if ev := fe.events(id); strings.Join(ev, ",") != files.EventExportReady {
			t.Fatalf("events: %v", ev)
		}

		// Debtors, ',' with amounts in points: what each owes in collection.
		dexp := fe.ok(202, "POST", "/v1/exports", obj{"resource": "debtors", "filters": obj{"sort_by": "name"}})
		dexp = fe.waitFile("/v1/exports/" + dexp["id"].(string))
		_, _, _, body = fe.download(dexp["download_path"].(string))
		recs = readCSV(t, body, ',')
		if len(recs) != 3 || csvColumn(t, recs[0], recs[1], "name") != "Açaí & Cia; \"Ltda\"" || csvColumn(t, recs[0], recs[1], "open_amount") != "99.90" ||
			csvColumn(t, recs[0], recs[2], "name") != "João da Conceição Araújo" || csvColumn(t, recs[0], recs[2], "open_amount") != "1234.56" {
			t.Fatalf("debtors: %v", recs)
		}

		// Notifications, filtered by channel, newest first.
		d, err := ledger.GetDebtor(ctx, db, fe.Mine.ID, "joao")
		if err != nil {
			t.Fatal(err)
		}
		for i, ch := range []string{"email", "sms", "email"} {
			at := coreStart.UTC().Add(-timeMinutes(10 - i))
			subject := "Lembrete: cobrança nº " + string(rune('1'+i))
			n := notify.Notification{ID: store.NewID(), OrganizationID: fe.Mine.ID, DebtorID: d.ID, Kind: notify.KindAdHoc, Channel: ch, ToAddress: "joao@example.com",
				Subject: &subject, Body: "Olá, João", Status: notify.NotificationSent, Provider: ledger.DefaultProvider, QueuedAt: at, SentAt: &at, CreatedBy: "test",
				CreatedAt: at, UpdatedAt: at}
			if err := db.WithTx(ctx, func(tx *store.Tx) error { _, err := notify.InsertNotification(ctx, tx, n); return err }); err != nil {
				t.Fatal(err)
			}
		}
		nexp := fe.ok(202, "POST", "/v1/exports", obj{"resource": "notifications", "filters": obj{"channel": "email", "debtor_id": "joao"}})
		nexp = fe.waitFile("/v1/exports/" + nexp["id"].(string))
		_, _, _, body = fe.download(nexp["download_path"].(string))
		recs = readCSV(t, body, ',')
		if len(recs) != 3 || csvColumn(t, recs[0], recs[1], "subject") != "Lembrete: cobrança nº 3" || csvColumn(t, recs[0], recs[2], "subject") != "Lembrete: cobrança nº 1" ||
			csvColumn(t, recs[0], recs[1], "created_at") != "2026-03-10T11:52:00-03:00" {
			t.Fatalf("notifications: %v", recs)
		}

		// Refusals.
		fields, _ := fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/exports", obj{"resource": "notifications", "filters": obj{"due_from": "2026-01-01"}})
		wantFields(t, fields, "filters.due_from")
		fields, _ = fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/exports", obj{"resource": "charges", "filters": obj{"status": "late"}})
		wantFields(t, fields, "filters.status")
		fields, _ = fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/exports", obj{"resource": "charges", "separator": "|"})
		wantFields(t, fields, "separator")
		fields, _ = fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/exports", obj{"resource": "agreements", "filters": obj{"status": "late"}})
		wantFields(t, fields, "filters.status")
		fields, _ = fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/exports", obj{"resource": "agreements", "filters": obj{"due_from": "2026-01-01"}})
		wantFields(t, fields, "filters.due_from")
		fe.fails(fe.Owner, 404, "NOT_FOUND", "POST", "/v1/exports", obj{"resource": "agreements", "filters": obj{"debtor_id": "nope"}})
		fe.fails(fe.Owner, 404, "NOT_FOUND", "POST", "/v1/exports", obj{"resource": "notifications", "filters": obj{"charge_id": "nope"}})
		fe.fails(fe.Viewer, 403, "FORBIDDEN", "POST", "/v1/exports", obj{"resource": "charges"})
		code, text := fe.DoToken(fe.Token(fe.Owner, "api", "dunning.exports"), "POST", "/v1/exports", obj{"resource": "charges"})
		if code != 403 || !strings.Contains(text, "dunning.charges") {
			t.Fatalf("without the charges scope: %d %s", code, text)
		}
		for _, p := range []string{"/v1/exports/" + id, "/v1/exports/" + id + "/download"} {
			fe.fails(fe.Other, 404, "NOT_FOUND", "GET", p, nil)
		}

		// The resource is the CSV itself; the tool only describes it.
		res := fe.RPC(fe.Owner, "resources/read", map[string]any{"uri": "kobana://dunning/exports/" + id})
		var read struct {
			Result struct {
				Contents []struct{ URI, MimeType, Text string }
			}
		}
		if err := json.Unmarshal([]byte(res), &read); err != nil || len(read.Result.Contents) != 1 || read.Result.Contents[0].MimeType != "text/csv" ||
			!strings.Contains(read.Result.Contents[0].Text, "João da Conceição Araújo") {
			t.Fatalf("resources/read: %s", res)
		}
		out, isErr := fe.Call(fe.Owner, "dunning_exports_get", map[string]any{"id": id})
		if isErr || strings.Contains(out, "João") || !strings.Contains(out, `"row_count": 2`) {
			t.Fatalf("tool: %s", out)
		}
	})
}

// TestExportHundredThousandRows: 100 000 charges (5 000 under the race
// detector, largeExportRows) export and parse back row by row, accents
// intact, on both engines; the download streams the parts as stored.
func TestExportHundredThousandRows(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("100 000 rows")
	}
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		fe.debtor("joao", "João da Conceição Araújo", cpfOK)
		const n = largeExportRows
		seedCharges(t, db, fe.Mine.ID, "joao", n)
		exp := fe.ok(202, "POST", "/v1/exports", obj{"resource": "charges", "separator": ";"})
		exp = fe.waitFile("/v1/exports/" + exp["id"].(string))
		if exp["status"] != files.FileReady || num(exp, "row_count") != n {
			t.Fatalf("export: %v", exp)
		}
		resp, err := httpGet(fe, exp["download_path"].(string))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Close()
		bom := make([]byte, len(files.UTF8BOM))
		if _, err := io.ReadFull(resp, bom); err != nil || string(bom) != files.UTF8BOM {
			t.Fatalf("bom %q %v", bom, err)
		}
		r := csv.NewReader(resp)
		r.Comma = ';'
		r.ReuseRecord = true
		first, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		header := append([]string(nil), first...) // Read reuses its slice
		rows := 0
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			rows++
			if csvColumn(t, header, rec, "debtor_name") != "João da Conceição Araújo" || !strings.HasPrefix(csvColumn(t, header, rec, "description"), "Prestação nº ") {
				t.Fatalf("row %d: %v", rows, rec)
			}
		}
		if rows != n {
			t.Fatalf("%d rows, want %d", rows, n)
		}
	})
}
