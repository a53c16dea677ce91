package dunning

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledongthuc/pdf"

	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// cloneCharge copies charge id n times in one INSERT … SELECT over a
// recursive count (both engines), each copy with its own id and no
// external_id: many open charges of one debtor without a call each.
func cloneCharge(t *testing.T, ctx context.Context, db *store.DB, q interface {
	Exec(context.Context, string, ...any) (sql.Result, error)
}, id string, n int) {
	t.Helper()
	rows, err := db.SQL().QueryContext(ctx, `SELECT * FROM dunning_charges WHERE 1 = 0`)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := rows.Columns()
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	sel := make([]string, len(cols))
	for i, c := range cols {
		switch c {
		case "id":
			sel[i] = "c.id || '-' || CAST(n.i AS TEXT)"
		case "external_id":
			sel[i] = "NULL"
		default:
			sel[i] = "c." + c
		}
	}
	query := `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < CAST(? AS INTEGER))
		INSERT INTO dunning_charges (` + strings.Join(cols, ", ") + `) SELECT ` + strings.Join(sel, ", ") + ` FROM dunning_charges c, n WHERE c.id = ?`
	if _, err := q.Exec(ctx, query, n, id); err != nil {
		t.Fatal(err)
	}
}

// documentJobState is the state and attempt of the document's job.
func documentJobState(t *testing.T, db *store.DB, docID string) (state string, attempt int) {
	t.Helper()
	args := "CAST(args AS TEXT)"
	if db.Dialect() == store.SQLite {
		args = "json(args)" // River keeps SQLite's args as JSONB
	}
	var jobs []struct {
		State   string `db:"state"`
		Attempt int    `db:"attempt"`
		Args    string `db:"args"`
	}
	if err := db.Select(context.Background(), &jobs, `SELECT state, attempt, `+args+` AS args FROM river_job WHERE kind = ?`, files.DocumentArgs{}.Kind()); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if strings.Contains(j.Args, docID) {
			return j.State, j.Attempt
		}
	}
	t.Fatalf("no job for document %s", docID)
	return "", 0
}

// TestDocumentBounds: a statement of maxDocumentRows open charges
// renders; one charge more is a VALIDATION_ERROR at request time, on REST
// and MCP, pointing to the CSV export and making no document; a debtor
// whose charges grow past the bound between the request and the job has
// the document failed once with why, its job cancelled (not retried), no
// event emitted.
func TestDocumentBounds(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		ctx := context.Background()

		// At the bound: it renders.
		fe.debtor("big", "Grande Devedora Ltda", cnpjOK)
		first := fe.charge(obj{"debtor_id": "big", "description": "Parcela", "amount": 10, "due_date": "2026-03-20"})
		cloneCharge(t, ctx, db, db, first["id"].(string), files.MaxDocumentRows-1)
		start := time.Now()
		doc := fe.ok(202, "POST", "/v1/debtors/big/statement", nil)
		doc = fe.waitFile("/v1/documents/" + doc["id"].(string))
		if doc["status"] != files.FileReady {
			t.Fatalf("statement at the bound: %v", doc)
		}
		_, _, _, data := fe.download(doc["download_path"].(string))
		r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d lines: %d pages, %d KB, ready in %v", files.MaxDocumentRows, r.NumPage(), len(data)>>10, time.Since(start))
		if r.NumPage() < files.MaxDocumentRows/50 {
			t.Fatalf("%d pages for %d lines", r.NumPage(), files.MaxDocumentRows)
		}

		// One more: refused at request time, nothing made.
		cloneCharge(t, ctx, db, db, first["id"].(string)+"-1", 1)
		var before int
		if err := db.Get(ctx, &before, `SELECT COUNT(*) FROM dunning_documents`); err != nil {
			t.Fatal(err)
		}
		fields, msg := fe.fails(fe.Owner, 422, "VALIDATION_ERROR", "POST", "/v1/debtors/big/statement", nil)
		wantFields(t, fields, "id")
		if !strings.Contains(msg, fmt.Sprintf("this debtor has %d open charges and a statement lists at most %d", files.MaxDocumentRows+1, files.MaxDocumentRows)) ||
			!strings.Contains(msg, "POST /v1/exports") || !strings.Contains(msg, `"debtor_id": "big"`) {
			t.Fatalf("message: %q", msg)
		}
		out, isErr := fe.Call(fe.Owner, "dunning_debtors_statement", map[string]any{"id": "big"})
		if !isErr || !strings.Contains(out, "dunning_exports_create") {
			t.Fatalf("tool: %v %s", isErr, out)
		}
		var after int
		if err := db.Get(ctx, &after, `SELECT COUNT(*) FROM dunning_documents`); err != nil || after != before {
			t.Fatalf("documents %d, then %d: %v", before, after, err)
		}

		// Grown between the request and the job: the request counts the
		// bound, then the same transaction adds one charge.
		fe.debtor("grows", "Devedora Crescente", cpfOK)
		seed := fe.charge(obj{"debtor_id": "grows", "description": "Parcela", "amount": 10, "due_date": "2026-03-20"})
		cloneCharge(t, ctx, db, db, seed["id"].(string), files.MaxDocumentRows-1)
		var id string
		if err := db.WithTx(ctx, func(tx *store.Tx) error {
			var err error
			if id, err = fe.svc.RequestDocumentTx(ctx, tx, fe.Mine.ID, files.DocumentStatement, "grows"); err != nil {
				return err
			}
			cloneCharge(t, ctx, db, tx, seed["id"].(string)+"-1", 1)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		doc = fe.waitFile("/v1/documents/" + id)
		if doc["status"] != files.FileFailed || !strings.Contains(fmt.Sprint(doc["error"]), fmt.Sprintf("more than %d rows", files.MaxDocumentRows)) ||
			!strings.Contains(fmt.Sprint(doc["error"]), "dunning_exports_create") {
			t.Fatalf("grown statement: %v", doc)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			state, attempt := documentJobState(t, db, id)
			if state == "cancelled" && attempt == 1 {
				break
			}
			if state != "running" || time.Now().After(deadline) {
				t.Fatalf("the job of the grown statement is %s after %d attempts, want cancelled after 1", state, attempt)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if ev := fe.events(id); len(ev) != 0 {
			t.Fatalf("events of the failed statement: %v", ev)
		}
	})
}

// TestAgreementTermWithinBound: the largest agreement a proposal allows
// prints fewer rows than a document holds, so its term never fails for
// its size.
func TestAgreementTermWithinBound(t *testing.T) {
	t.Parallel()
	if escalation.MaxAgreementCharges+escalation.MaxAgreementInstallments > files.MaxDocumentRows {
		t.Fatalf("an agreement of %d charges and %d installments exceeds the %d rows of a document", escalation.MaxAgreementCharges, escalation.MaxAgreementInstallments, files.MaxDocumentRows)
	}
}

// atCapStatement is a statement of maxDocumentRows lines with long
// descriptions, the largest a job draws.
func atCapStatement() files.StatementDoc {
	on := bankcalendar.DateOf(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	d := files.StatementDoc{Creditor: files.DocParty{Name: "Condomínio Edifício Açaí", Document: cnpjOK}, Debtor: files.DocParty{Name: "João da Conceição Araújo"}, On: on,
		IssuedAt: time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)}
	for i := 0; i < files.MaxDocumentRows; i++ {
		d.Lines = append(d.Lines, files.StatementLine{Description: fmt.Sprintf("Cota condominial nº %d, com multa e juros de mora do período", i),
			Reference: fmt.Sprintf("cota-%d", i), DueDate: on, DaysLate: 28, Open: 123456, Fine: 2469, Interest: 1152, Updated: 127077})
	}
	return d
}

// TestStatementAtCapMemory: drawing the largest statement stays within
// what ten at once may take on the server: under 256 MB allocated in all
// (measured: about 90 MB). Not parallel: the allocation count is the
// process's.
func TestStatementAtCapMemory(t *testing.T) {
	d := atCapStatement()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	out, err := files.RenderStatement(d)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d lines: %d KB PDF, %d MB allocated, %v", files.MaxDocumentRows, len(out)>>10, alloc>>20, elapsed)
	if alloc > 256<<20 {
		t.Fatalf("drawing %d lines allocated %d MB", files.MaxDocumentRows, alloc>>20)
	}
}

// BenchmarkRenderStatementAtCap measures drawing the largest statement.
func BenchmarkRenderStatementAtCap(b *testing.B) {
	d := atCapStatement()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := files.RenderStatement(d); err != nil {
			b.Fatal(err)
		}
	}
}
