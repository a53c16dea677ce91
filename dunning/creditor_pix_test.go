package dunning

import (
	"bytes"
	"encoding/binary"
	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
	"hash/crc32"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// TestCreditorPixKey: the creditor's Pix key of every DICT type is taken
// in the form DICT holds it, a bad one is VALIDATION_ERROR naming
// pix_key and changes nothing, the BR Code's name and city default to
// the legal name and the address's city made upper-case ASCII and cut to
// 25 and 15, set ones too long are refused, a key without any city is
// refused naming pix_merchant_city, and a PUT without a key removes it.
func TestCreditorPixKey(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		addr := obj{"street": "Rua Três Corações", "number": "12", "city": "São João del-Rei", "state": "MG"}
		base := func(extra obj) obj {
			o := obj{"legal_name": "Condomínio Edifício Açaí das Palmeiras Ltda", "document": cnpjOK, "address": addr}
			for k, v := range extra {
				o[k] = v
			}
			return o
		}
		for _, want := range [][3]string{
			{cpfOK, "52998224725", "cpf"},
			{cnpjOK, "11222333000181", "cnpj"},
			{"Cobranca@Acai.com.BR", "cobranca@acai.com.br", "email"},
			{"+5532988887777", "+5532988887777", "phone"},
			{"9F3B1C2A-0D4E-4F5A-8B6C-7D8E9F0A1B2C", "9f3b1c2a-0d4e-4f5a-8b6c-7d8e9f0a1b2c", "evp"}, // last: the GET below reads it
		} {
			key := want[0]
			want := want[1:]
			got := fe.ok(200, "PUT", "/v1/settings/creditor", base(obj{"pix_key": key}))
			pix, _ := got["pix"].(obj)
			if pix == nil || pix["key"] != want[0] || pix["key_type"] != want[1] ||
				pix["merchant_name"] != "CONDOMINIO EDIFICIO ACAI" || pix["merchant_city"] != "SAO JOAO DEL-RE" {
				t.Fatalf("%s: %v", key, got)
			}
		}
		if pix := fe.ok(200, "GET", "/v1/settings/creditor", nil)["pix"].(obj); pix["key"] != "9f3b1c2a-0d4e-4f5a-8b6c-7d8e9f0a1b2c" {
			t.Fatalf("GET: %v", pix)
		}
		for _, bad := range []string{"529.982.247-24", "32988887777", "+1 555 123 4567", "+55 32 98888-7777", "cobranca@", "11.222.333/0001-82", "uma chave"} {
			fields, _ := fe.fails(fe.Admin, 422, "VALIDATION_ERROR", "PUT", "/v1/settings/creditor", base(obj{"pix_key": bad}))
			wantFields(t, fields, "pix_key")
		}
		fields, _ := fe.fails(fe.Admin, 422, "VALIDATION_ERROR", "PUT", "/v1/settings/creditor", base(obj{"pix_key": cpfOK, "pix_merchant_name": strings.Repeat("Á", 26)}))
		wantFields(t, fields, "pix_merchant_name")
		fields, _ = fe.fails(fe.Admin, 422, "VALIDATION_ERROR", "PUT", "/v1/settings/creditor", base(obj{"pix_key": cpfOK, "pix_merchant_city": "Florianópolis do Sul"}))
		wantFields(t, fields, "pix_merchant_city")
		fields, _ = fe.fails(fe.Admin, 422, "VALIDATION_ERROR", "PUT", "/v1/settings/creditor", obj{"legal_name": "X", "document": cnpjOK, "pix_key": cpfOK})
		wantFields(t, fields, "pix_merchant_city")
		fields, _ = fe.fails(fe.Admin, 422, "VALIDATION_ERROR", "PUT", "/v1/settings/creditor", obj{"legal_name": "「株式会社」", "document": cnpjOK,
			"address": addr, "pix_key": cpfOK})
		wantFields(t, fields, "pix_merchant_name")
		fields, _ = fe.fails(fe.Admin, 422, "VALIDATION_ERROR", "PUT", "/v1/settings/creditor", base(obj{"pix_merchant_city": "Tiradentes"}))
		wantFields(t, fields, "pix_merchant_city")
		// Nothing of the refused requests was written.
		if pix := fe.ok(200, "GET", "/v1/settings/creditor", nil)["pix"].(obj); pix["key"] != "9f3b1c2a-0d4e-4f5a-8b6c-7d8e9f0a1b2c" || pix["merchant_city"] != "SAO JOAO DEL-RE" {
			t.Fatalf("after refusals: %v", pix)
		}
		got := fe.ok(200, "PUT", "/v1/settings/creditor", obj{"legal_name": "X", "document": cnpjOK, "pix_key": "+5532988887777",
			"pix_merchant_name": "Açaí & Cia", "pix_merchant_city": "Tiradentes"})
		if pix := got["pix"].(obj); pix["merchant_name"] != "ACAI & CIA" || pix["merchant_city"] != "TIRADENTES" {
			t.Fatalf("set name and city: %v", got)
		}
		if got := fe.ok(200, "PUT", "/v1/settings/creditor", base(nil)); got["pix"] != nil {
			t.Fatalf("a PUT without a key keeps one: %v", got)
		}
		fe.fails(fe.Member, 403, "FORBIDDEN", "PUT", "/v1/settings/creditor", base(obj{"pix_key": cpfOK}))
		if c, o := fe.call(fe.Other, "GET", "/v1/settings/creditor", nil); c != 200 || o["data"].(obj)["set"] != false {
			t.Fatalf("another organization sees the creditor: %d %v", c, o)
		}
	})
}

// TestStatementPrintsPix: with a Pix key, the debtor statement prints,
// for each open charge, its QR (read back from the PDF's image) and its
// copia e cola of the statement's day — the code dunning_charges_pix gives that
// day, whose amount is the charge's updated amount; without a key it
// prints neither.
func TestStatementPrintsPix(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		fe.debtor("joao", "João da Conceição Araújo", cpfOK)
		fe.charge(obj{"debtor_id": "joao", "external_id": "cota-fev", "description": "Cota condominial de fevereiro", "amount": 1234.56,
			"due_date": "2026-02-10", "fine_percent": 2, "interest_percent": 1})
		statement := func() (string, []byte) {
			doc := fe.ok(202, "POST", "/v1/debtors/joao/statement", nil)
			doc = fe.waitFile("/v1/documents/" + doc["id"].(string))
			code, _, _, pdf := fe.download(doc["download_path"].(string))
			if code != 200 {
				t.Fatalf("download %d", code)
			}
			return pdfText(t, pdf), pdf
		}
		text, pdf := statement()
		if strings.Contains(text, "Pix") || bytes.Contains(pdf, []byte("/Subtype /Image")) {
			t.Fatalf("a statement without a Pix key prints one:\n%s", text)
		}
		fe.ok(200, "PUT", "/v1/settings/creditor", obj{"legal_name": "Condomínio Edifício Açaí", "document": cnpjOK,
			"address": obj{"city": "São Paulo", "state": "SP"}, "pix_key": "+5511912345678"})
		code := fe.ok(200, "GET", "/v1/charges/cota-fev/pix", nil)
		p, err := brazil.DecodePix(code["payload"].(string))
		if err != nil || p.AmountCents != 123456+2469+1152 {
			t.Fatalf("the code of the day %+v %v", p, err)
		}
		text, pdf = statement()
		squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if !strings.Contains(text, "Pagamento por Pix") || !strings.Contains(squeeze(text), squeeze(p.Payload)) {
			t.Fatalf("the statement does not print the code %s:\n%s", p.Payload, text)
		}
		if qrs := pdfQRCodes(t, pdf); len(qrs) != 1 || qrs[0] != p.Payload {
			t.Fatalf("the statement's QR codes read %q, want the one %s", qrs, p.Payload)
		}
		keepArtifact(t, "dunning-statement-pix-"+string(db.Dialect())+".pdf", pdf)
	})
}

// pdfImageRe finds a 1-bit gray image of a PDF as fpdf writes a PNG's:
// the PNG's own zlib stream (IDAT) with PNG predictors.
var pdfImageRe = regexp.MustCompile(`/Subtype /Image\n/Width (\d+)\n/Height (\d+)\n/ColorSpace /DeviceGray\n/BitsPerComponent 1\n/Filter /FlateDecode\n/DecodeParms <<[^>]*>>\n/Length (\d+)>>\nstream\n`)

// pdfQRCodes reads the QR codes of a PDF's gray images: each image is
// wrapped back into a PNG (IHDR, its IDAT, IEND) and read by gozxing.
func pdfQRCodes(t *testing.T, pdf []byte) []string {
	t.Helper()
	chunk := func(kind string, data []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		out = append(out, kind...)
		out = append(out, data...)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	}
	var codes []string
	for _, m := range pdfImageRe.FindAllSubmatchIndex(pdf, -1) {
		w, _ := strconv.Atoi(string(pdf[m[2]:m[3]]))
		h, _ := strconv.Atoi(string(pdf[m[4]:m[5]]))
		n, _ := strconv.Atoi(string(pdf[m[6]:m[7]]))
		ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
		ihdr = append(ihdr, 1, 0, 0, 0, 0) // 1 bit, gray, deflate, adaptive filter, no interlace
		img := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
		img = append(img, chunk("IDAT", pdf[m[1]:m[1]+n])...)
		img = append(img, chunk("IEND", nil)...)
		codes = append(codes, braziltest.ReadQR(t, img))
	}
	return codes
}

// TestAgreementTermPrintsPix: with a Pix key, accepting an agreement
// draws its term again, and the accepted term prints each installment's
// QR (read back from the PDF's images) and copia e cola: the code
// dunning_charges_pix gives for that installment's charge, for its
// amount. The proposal's term, drawn before anything was payable, prints
// none.
func TestAgreementTermPrintsPix(t *testing.T) {
	t.Parallel()
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		fe := newCoreEnv(t, db)
		fe.debtor("joao", "João da Conceição Araújo", cpfOK)
		fe.charge(obj{"debtor_id": "joao", "external_id": "cota-fev", "description": "Cota condominial de fevereiro", "amount": 90,
			"due_date": "2026-02-10"})
		fe.ok(200, "PUT", "/v1/settings/creditor", obj{"legal_name": "Condomínio Edifício Açaí", "document": cnpjOK,
			"address": obj{"city": "São Paulo", "state": "SP"}, "pix_key": "+5511912345678"})
		term := func(id string) (string, []byte) {
			doc := fe.waitFile("/v1/documents/" + id)
			code, _, _, pdf := fe.download(doc["download_path"].(string))
			if code != 200 {
				t.Fatalf("download %d", code)
			}
			return pdfText(t, pdf), pdf
		}
		ag := fe.ok(201, "POST", "/v1/agreements", obj{"debtor_id": "joao", "charge_ids": []string{"cota-fev"}, "installments": 2})
		proposed := ag["term_document_id"].(string)
		if text, pdf := term(proposed); strings.Contains(text, "Pix") || bytes.Contains(pdf, []byte("/Subtype /Image")) {
			t.Fatalf("the proposal's term prints a Pix code:\n%s", text)
		}
		ag = fe.ok(200, "POST", "/v1/agreements/"+ag["id"].(string)+"/accept", obj{})
		accepted, _ := ag["term_document_id"].(string)
		if accepted == "" || accepted == proposed {
			t.Fatalf("the accepted agreement's term: %v", ag)
		}
		_, _, charges := installmentsOf(ag)
		if len(charges) != 2 {
			t.Fatalf("installment charges %v", ag)
		}
		var want []string
		for _, id := range charges {
			code := fe.ok(200, "GET", "/v1/charges/"+id+"/pix", nil)
			p, err := brazil.DecodePix(code["payload"].(string))
			if err != nil || p.AmountCents != 4500 {
				t.Fatalf("installment %s's code %+v %v", id, p, err)
			}
			want = append(want, p.Payload)
		}
		text, pdf := term(accepted)
		squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
		for _, w := range want {
			if !strings.Contains(squeeze(text), squeeze(w)) {
				t.Fatalf("the term does not print the code %s:\n%s", w, text)
			}
		}
		if !strings.Contains(text, "1ª parcela · vence em") || !strings.Contains(text, "Pagamento por Pix") {
			t.Fatalf("the term's Pix section:\n%s", text)
		}
		// The PDF keeps its images in an order of its own, not the page's.
		qrs := pdfQRCodes(t, pdf)
		slices.Sort(qrs)
		slices.Sort(want)
		if !slices.Equal(qrs, want) {
			t.Fatalf("the term's QR codes read %q, want %q", qrs, want)
		}
		keepArtifact(t, "dunning-agreement-term-pix-"+string(db.Dialect())+".pdf", pdf)
	})
}
