package extract

import (
	"slices"
	"testing"
)

func TestValidCNPJAndCPF(t *testing.T) {
	validCNPJs := []string{"11.222.333/0001-81", "11222333000181", "11.444.777/0001-61",
		"12.ABC.345/01DE-35", "12ABC34501DE35", "12.abc.345/01de-35", "A1B2C3D4E5F668"}
	for _, s := range validCNPJs {
		if !ValidCNPJ(s) {
			t.Errorf("%s rejected", s)
		}
	}
	invalidCNPJs := []string{"11.222.333/0001-82", "11222333000180", "12ABC34501DE36", "12ABC34501DF35",
		"00000000000000", "11111111111111", "1122233300018", "12ABC34501DEA5", "12ABC34501D-35"}
	for _, s := range invalidCNPJs {
		if ValidCNPJ(s) {
			t.Errorf("%s accepted", s)
		}
	}
	for _, s := range []string{"529.982.247-25", "52998224725", "111.444.777-35"} {
		if !ValidCPF(s) {
			t.Errorf("%s rejected", s)
		}
	}
	for _, s := range []string{"529.982.247-24", "52998224735", "00000000000", "99999999999", "5299822472"} {
		if ValidCPF(s) {
			t.Errorf("%s accepted", s)
		}
	}
}

func TestFindDocuments(t *testing.T) {
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
