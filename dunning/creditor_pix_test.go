package dunning

import (
	"strings"
	"testing"

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
