package dunning

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// waitFile polls path (a document or an export) until it is no longer
// generating, and answers it.
func (ce *dunEnv) waitFile(path string) obj {
	ce.t.Helper()
	deadline := time.Now().Add(testWait)
	for {
		d := ce.ok(200, "GET", path, nil)
		if d["status"] != files.FileGenerating {
			return d
		}
		if time.Now().After(deadline) {
			ce.t.Fatalf("%s still generating: %v", path, d)
		}
		time.Sleep(50 * time.Millisecond) // a request each time: less often than testPoll
	}
}

// download GETs a file as the owner and answers the status, headers'
// type and disposition, and the body.
func (ce *dunEnv) download(path string) (int, string, string, []byte) {
	ce.t.Helper()
	code, h, body := ce.DoFull(ce.Token(ce.Owner, "api"), "GET", path, nil)
	return code, h.Get("Content-Type"), h.Get("Content-Disposition"), []byte(body)
}

// TestDocuments: the statement and the settlement letter are made by a
// job (202, generating, then ready with dunning.document.ready), download
// as PDFs whose text reads back with the creditor's name and CNPJ, the
// debtor, every open charge's updated amount, fine and interest on the
// day, and Brazilian dates; a settlement letter of an unpaid charge is
// UNPROCESSABLE; another organization sees none of it; the agreement term
// waits for the agreements (NOT_FOUND through its seam, so failed).
func TestDocuments(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		admin, member := fe.Admin, fe.Member

		// The creditor: admins set it, with a valid CNPJ.
		if got := fe.ok(200, "GET", "/v1/settings/creditor", nil); got["set"] != false {
			t.Fatalf("creditor before: %v", got)
		}
		fe.fails(member, 403, "FORBIDDEN", "PUT", "/v1/settings/creditor", obj{"legal_name": "X", "document": cnpjOK})
		fields, _ := fe.fails(admin, 422, "VALIDATION_ERROR", "PUT", "/v1/settings/creditor", obj{"legal_name": "X", "document": "11.222.333/0001-82"})
		wantFields(t, fields, "document")
		cred := fe.ok(200, "PUT", "/v1/settings/creditor", obj{"legal_name": "Condomínio Edifício Açaí", "document": "11222333000181",
			"address": obj{"street": "Rua Três Corações", "number": "12", "city": "São João del-Rei", "state": "mg", "zip": "36300000"}})
		if cred["set"] != true || cred["document"] != cnpjOK || cred["address"].(obj)["state"] != "MG" {
			t.Fatalf("creditor: %v", cred)
		}

		fe.debtor("joao", "João da Conceição Araújo", cpfOK)
		late := fe.charge(obj{"debtor_id": "joao", "external_id": "cota-fev", "description": "Cota condominial de fevereiro", "amount": 1234.56,
			"due_date": "2026-02-10", "fine_percent": 2, "interest_percent": 1})
		fe.charge(obj{"debtor_id": "joao", "description": "Fundo de reserva - março", "amount": 500, "due_date": "2026-03-20"})
		paid := fe.charge(obj{"debtor_id": "joao", "external_id": "cota-jan", "description": "Cota condominial de janeiro", "amount": 300, "due_date": "2026-03-10"})
		fe.ok(201, "POST", "/v1/charges/cota-jan/payments", obj{"amount": 300, "method": "pix", "paid_at": "2026-03-10T09:30:00-03:00"})
		lateNow := fe.ok(200, "GET", "/v1/charges/cota-fev", nil)
		cents := func(o obj, k string) money.Cents { return money.Cents(int64(num(o, k)*100 + 0.5)) }

		// The statement.
		doc := fe.ok(202, "POST", "/v1/debtors/joao/statement", nil)
		id := doc["id"].(string)
		if doc["status"] != files.FileGenerating || doc["byte_size"] != nil || doc["content_type"] != "application/pdf" || doc["kind"] != "statement" ||
			doc["download_path"] != "/v1/documents/"+id+"/download" || !strings.Contains(doc["note"].(string), "dunning_documents_get") {
			t.Fatalf("statement asked: %v", doc)
		}
		doc = fe.waitFile("/v1/documents/" + id)
		if doc["status"] != files.FileReady || num(doc, "byte_size") < 1000 || doc["amounts_on"] != "2026-03-10" {
			t.Fatalf("statement: %v", doc)
		}
		code, ctype, disp, pdf := fe.download("/v1/documents/" + id + "/download")
		if code != 200 || ctype != "application/pdf" || disp != `attachment; filename=extrato-joao-2026-03-10.pdf` || int64(len(pdf)) != int64(num(doc, "byte_size")) {
			t.Fatalf("download: %d %q %q %d", code, ctype, disp, len(pdf))
		}
		text := pdfText(t, pdf)
		wantText(t, text, "Extrato de débitos", "Condomínio Edifício Açaí", "CNPJ "+cnpjOK, "Rua Três Corações, 12 - São João del-Rei/MG - 36300-000",
			"João da Conceição Araújo, CPF "+cpfOK, "Posição em: 10/03/2026",
			"Cota condominial de fevereiro 10/02/2026 28 R$ 1.234,56 "+cents(lateNow, "fine_amount").String()+" "+cents(lateNow, "interest_amount").String()+" "+cents(lateNow, "updated_amount").String(),
			"Fundo de reserva - março 20/03/2026 0 R$ 500,00 R$ 0,00 R$ 0,00 R$ 500,00",
			"Total atualizado em 10/03/2026: "+(cents(lateNow, "updated_amount")+50000).String())
		if strings.Contains(text, "janeiro") {
			t.Errorf("the paid charge is on the statement:\n%s", text)
		}
		if cents(lateNow, "fine_amount") != 2469 || cents(lateNow, "interest_amount") != 1152 {
			t.Fatalf("the charge's fine and interest: %v", lateNow)
		}
		keepArtifact(t, "dunning-statement-"+string(db.Dialect())+".pdf", pdf)
		if ev := fe.events(id); strings.Join(ev, ",") != files.EventDocumentReady {
			t.Fatalf("events of the statement: %v", ev)
		}

		// The settlement letter: only for a paid charge.
		_, msg := fe.fails(fe.Owner, 422, "UNPROCESSABLE", "POST", "/v1/charges/"+late["id"].(string)+"/settlement-letter", nil)
		if msg != "a settlement letter is only for a paid charge: this charge is overdue" {
			t.Fatalf("unpaid: %q", msg)
		}
		letter := fe.ok(202, "POST", "/v1/charges/"+paid["id"].(string)+"/settlement-letter", nil)
		letter = fe.waitFile("/v1/documents/" + letter["id"].(string))
		code, _, disp, pdf = fe.download(letter["download_path"].(string))
		if code != 200 || disp != `attachment; filename=carta-de-quitacao-cota-jan.pdf` {
			t.Fatalf("letter download: %d %q", code, disp)
		}
		wantText(t, pdfText(t, pdf), "Carta de quitação e anuência", "Condomínio Edifício Açaí, inscrita no CNPJ sob o nº "+cnpjOK,
			"João da Conceição Araújo, inscrito(a) no CPF sob o nº "+cpfOK, "quitou integralmente", "pago em 10/03/2026",
			"Cota condominial de janeiro cota-jan 10/03/2026 R$ 300,00 10/03/2026 R$ 300,00", "São João del-Rei, 10 de março de 2026.")
		keepArtifact(t, "dunning-settlement-letter-"+string(db.Dialect())+".pdf", pdf)

		// Another organization sees none of it.
		for _, p := range []string{"/v1/documents/" + id, "/v1/documents/" + id + "/download"} {
			fe.fails(fe.Other, 404, "NOT_FOUND", "GET", p, nil)
		}
		fe.fails(fe.Other, 404, "NOT_FOUND", "POST", "/v1/debtors/joao/statement", nil)
		fe.fails(fe.Other, 404, "NOT_FOUND", "POST", "/v1/charges/cota-jan/settlement-letter", nil)

		// The agreement term through the seam the agreements call: until
		// they exist their loader answers NOT_FOUND, so the term fails,
		// and its download says why.
		var termID string
		if err := db.WithTx(context.Background(), func(tx *store.Tx) error {
			var err error
			termID, err = fe.svc.RequestDocumentTx(context.Background(), tx, fe.Mine.ID, files.DocumentAgreementTerm, "agreement-1")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		term := fe.waitFile("/v1/documents/" + termID)
		if term["status"] != files.FileFailed || term["error"] != "agreement not found" || term["byte_size"] != nil || term["kind"] != "agreement_term" {
			t.Fatalf("term: %v", term)
		}
		_, msg = fe.fails(fe.Owner, 422, "UNPROCESSABLE", "GET", "/v1/documents/"+termID+"/download", nil)
		if msg != "the document failed and has no file: agreement not found" {
			t.Fatalf("failed download: %q", msg)
		}

		// Through MCP: the tool describes the document and never holds its
		// bytes; the resource is the PDF itself.
		out, isErr := fe.Call(fe.Owner, "dunning_debtors_statement", map[string]any{"id": "joao"})
		var answer struct{ Data obj }
		if err := json.Unmarshal([]byte(out), &answer); isErr || err != nil || answer.Data["status"] != files.FileGenerating ||
			answer.Data["byte_size"] != nil || strings.Contains(out, "%PDF") || len(out) > 4000 {
			t.Fatalf("tool: %v %s", isErr, out)
		}
		res := fe.RPC(fe.Owner, "resources/read", map[string]any{"uri": "kobana://dunning/documents/" + id})
		var read struct {
			Result struct {
				Contents []struct{ URI, MimeType, Blob, Text string }
			}
		}
		if err := json.Unmarshal([]byte(res), &read); err != nil || len(read.Result.Contents) != 1 || read.Result.Contents[0].MimeType != "application/pdf" {
			t.Fatalf("resources/read: %s", res)
		}
		blob, err := base64.StdEncoding.DecodeString(read.Result.Contents[0].Blob)
		if err != nil || string(blob) != string(pdf0(t, fe, id)) {
			t.Fatalf("the resource is not the PDF: %v", err)
		}
		// A failed document reads as its description.
		res = fe.RPC(fe.Owner, "resources/read", map[string]any{"uri": "kobana://dunning/documents/" + termID})
		if !strings.Contains(res, `\"download_path\": \"/v1/documents/`+termID+`/download\"`) || !strings.Contains(res, "application/json") {
			t.Fatalf("resources/read of a failed document: %s", res)
		}
		if res := fe.RPC(fe.Other, "resources/read", map[string]any{"uri": "kobana://dunning/documents/" + id}); !strings.Contains(res, `"error"`) {
			t.Fatalf("another organization read the document: %s", res)
		}
	})
}

// pdf0 downloads a document's bytes.
func pdf0(t *testing.T, fe *dunEnv, id string) []byte {
	t.Helper()
	code, _, _, b := fe.download("/v1/documents/" + id + "/download")
	if code != 200 {
		t.Fatalf("download %s: %d", id, code)
	}
	return b
}
