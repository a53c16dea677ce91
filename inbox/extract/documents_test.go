package extract

import (
	"slices"
	"testing"
)

func TestFindDocuments(t *testing.T) {
	t.Parallel()
	text := "Emitente: ACME LTDA, CNPJ 11.222.333/0001-81\n" +
		"Novo CNPJ: 12.ABC.345/01DE-35 e cnpj 12ABC34501DE35 (repetido sem máscara)\n" +
		"Código ABCDEFGHIJKL35 não é CNPJ sem rótulo.\n" +
		"Tomador CPF 529.982.247-25, outro 11144477735; inválido 529.982.247-24\n" +
		"Placeholder 000.000.000-00 e 11111111111; valor 12345678901,00; pedido X11222333000181\n" +
		"CNPJ sem máscara 11444777000161."
	var got []string
	for _, h := range findDocuments(text) {
		got = append(got, h.doc.Kind+":"+h.doc.Number+":"+h.doc.Formatted)
		if h.doc.Number == "12ABC34501DE35" && !h.doc.Alphanumeric {
			t.Error("alphanumeric CNPJ not marked")
		}
	}
	slices.Sort(got)
	want := []string{
		"cnpj:11222333000181:11.222.333/0001-81",
		"cnpj:11444777000161:11.444.777/0001-61",
		"cnpj:12ABC34501DE35:12.ABC.345/01DE-35",
		"cnpj:12ABC34501DE35:12.ABC.345/01DE-35",
		"cpf:11144477735:111.444.777-35",
		"cpf:52998224725:529.982.247-25",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
