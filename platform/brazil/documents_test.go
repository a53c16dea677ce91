package brazil

import "testing"

func TestValidCNPJAndCPF(t *testing.T) {
	t.Parallel()
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

func TestNormalizeDocument(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"529.982.247-25":       "52998224725",
		" 11.222.333/0001-81 ": "11222333000181",
		"12.abc.345/01de-35":   "12ABC34501DE35",
		"CPF: 529 982 247 25":  "CPF52998224725", // it drops punctuation, not words
		"Çç-1":                 "1",              // non-ASCII letters are not CNPJ characters
		"":                     "",
	}
	for in, want := range cases {
		if got := NormalizeDocument(in); got != want {
			t.Errorf("NormalizeDocument(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDocumentKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		kind string
		ok   bool
	}{
		{"529.982.247-25", KindCPF, true},
		{"52998224725", KindCPF, true},
		{"11.222.333/0001-81", KindCNPJ, true},
		{"12.abc.345/01de-35", KindCNPJ, true},
		{"529.982.247-24", "", false},     // check digit
		{"11.222.333/0001-82", "", false}, // check digit
		{"000.000.000-00", "", false},     // placeholder
		{"5299822472", "", false},         // ten digits
		{"123456789012", "", false},       // twelve
		{"12ABC345678", "", false},        // letters are for CNPJs only
		{"", "", false},
	}
	for _, c := range cases {
		if kind, ok := DocumentKind(c.in); kind != c.kind || ok != c.ok {
			t.Errorf("DocumentKind(%q) = %q, %v; want %q, %v", c.in, kind, ok, c.kind, c.ok)
		}
	}
}

func TestFormatDocument(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"12345678909":        "123.456.789-09",
		"123.456.789-09":     "123.456.789-09",
		" 123 456 789 09 ":   "123.456.789-09",
		"12345678000195":     "12.345.678/0001-95",
		"12.345.678/0001-95": "12.345.678/0001-95",
		"12abc34501de35":     "12.ABC.345/01DE-35",
		// Not valid: returned as given, never punctuated like a real one.
		"12345678900":     "12345678900",
		"12.345.678-0001": "12.345.678-0001",
		"abc":             "abc",
		"":                "",
	}
	for in, want := range cases {
		if got := FormatDocument(in); got != want {
			t.Errorf("FormatDocument(%q) = %q, want %q", in, got, want)
		}
	}
	// What FormatDocument prints, the validators and DocumentKind accept
	// again, as the same number.
	for _, n := range []string{"52998224725", "11222333000181", "12ABC34501DE35"} {
		f := FormatDocument(n)
		if _, ok := DocumentKind(f); !ok || NormalizeDocument(f) != n || (!ValidCPF(f) && !ValidCNPJ(f)) {
			t.Errorf("%s formatted as %s does not read back", n, f)
		}
	}
}
