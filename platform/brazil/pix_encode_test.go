package brazil

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/brazil/braziltest"
)

// TestEncodePixBCBExample: the encoder writes the Banco Central manual's
// static example byte for byte (its CRC 1D3D comes from the manual).
func TestEncodePixBCBExample(t *testing.T) {
	t.Parallel()
	got, err := EncodePix(PixCode{Key: "123e4567-e12b-12d1-a456-426655440000", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "***"})
	if err != nil {
		t.Fatal(err)
	}
	if got != braziltest.BCBExample {
		t.Errorf("got  %s\nwant %s", got, braziltest.BCBExample)
	}
}

// TestEncodePixRoundTrip: the project's decoder reads back every code the
// encoder makes, for random keys of every type, amounts, names and txids;
// and the bitwise reference CRC of braziltest agrees with field 63.
func TestEncodePixRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 2026))
	keys := []func() string{
		func() string { return testCPF(rng.IntN(1_000_000_000)) },
		func() string { return testCNPJ(rng.IntN(100_000_000)) },
		func() string { return fmt.Sprintf("cobranca%d@escola-exemplo.com.br", rng.IntN(1e6)) },
		func() string { return fmt.Sprintf("+55%02d9%08d", 11+rng.IntN(88), rng.IntN(1e8)) },
		func() string {
			return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&(1<<48-1))
		},
	}
	types := []string{PixKeyCPF, PixKeyCNPJ, PixKeyEmail, PixKeyPhone, PixKeyEVP}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for i := range 500 {
		k := i % len(keys)
		key, typ, err := NormalizePixKey(keys[k]())
		if err != nil || typ != types[k] {
			t.Fatalf("key %d: %q %q %v", i, key, typ, err)
		}
		txid := make([]byte, 1+rng.IntN(PixMaxTxID))
		for j := range txid {
			txid[j] = alnum[rng.IntN(len(alnum))]
		}
		c := PixCode{Key: key, MerchantName: PixText(fmt.Sprintf("Escola São João %d Ltda", rng.IntN(1e6)), PixMaxMerchantName),
			MerchantCity: PixText("São Paulo", PixMaxMerchantCity), AmountCents: rng.Int64N(10_000_000_000), TxID: string(txid)}
		payload, err := EncodePix(c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		p, err := DecodePix(payload)
		if err != nil {
			t.Fatalf("%s: %v", payload, err)
		}
		if p.Key != c.Key || p.KeyType != typ || p.AmountCents != c.AmountCents || p.TxID != c.TxID ||
			p.MerchantName != c.MerchantName || p.MerchantCity != c.MerchantCity {
			t.Fatalf("encoded %+v, decoded %+v", c, p)
		}
		if got := payload[len(payload)-4:]; got != braziltest.CRC(payload[:len(payload)-4]) {
			t.Fatalf("%s: field 63 %s, reference CRC %s", payload, got, braziltest.CRC(payload[:len(payload)-4]))
		}
	}
}

func TestEncodePixAmountField(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{1: "54040.01", 10: "54040.10", 123456: "54071234.56", 100: "54041.00"} {
		payload, err := EncodePix(PixCode{Key: "+5511912345678", MerchantName: "A", MerchantCity: "B", TxID: "KB1", AmountCents: cents})
		if err != nil || !strings.Contains(payload, "5303986"+want+"5802BR") {
			t.Errorf("%d: %s (%v), want field %s", cents, payload, err, want)
		}
	}
	payload, _ := EncodePix(PixCode{Key: "+5511912345678", MerchantName: "A", MerchantCity: "B", TxID: "KB1"})
	if strings.Contains(payload, "5303986"+"54") {
		t.Errorf("no amount still writes field 54: %s", payload)
	}
}

func TestEncodePixRejects(t *testing.T) {
	t.Parallel()
	ok := PixCode{Key: "+5511912345678", MerchantName: "ESCOLA", MerchantCity: "SAO PAULO", TxID: "KB1"}
	for name, mut := range map[string]func(*PixCode){
		"no key":       func(c *PixCode) { c.Key = "" },
		"no name":      func(c *PixCode) { c.MerchantName = "" },
		"long name":    func(c *PixCode) { c.MerchantName = strings.Repeat("A", 26) },
		"long city":    func(c *PixCode) { c.MerchantCity = strings.Repeat("A", 16) },
		"txid symbol":  func(c *PixCode) { c.TxID = "KB-1" },
		"txid long":    func(c *PixCode) { c.TxID = strings.Repeat("A", 26) },
		"txid empty":   func(c *PixCode) { c.TxID = "" },
		"negative":     func(c *PixCode) { c.AmountCents = -1 },
		"huge amount":  func(c *PixCode) { c.AmountCents = 1e13 },
		"long message": func(c *PixCode) { c.Info = strings.Repeat("m", 80) },
	} {
		c := ok
		mut(&c)
		if _, err := EncodePix(c); err == nil {
			t.Errorf("%s: accepted %+v", name, c)
		}
	}
	if _, err := EncodePix(ok); err != nil {
		t.Fatal(err)
	}
}

func TestNormalizePixKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		"123.456.789-09":                       {"12345678909", PixKeyCPF},
		"12.345.678/0001-95":                   {"12345678000195", PixKeyCNPJ},
		" Cobranca@Escola.COM.br ":             {"cobranca@escola.com.br", PixKeyEmail},
		"+5511912345678":                       {"+5511912345678", PixKeyPhone},
		"+551133334444":                        {"+551133334444", PixKeyPhone},
		"123E4567-E12B-12D1-A456-426655440000": {"123e4567-e12b-12d1-a456-426655440000", PixKeyEVP},
	} {
		key, typ, err := NormalizePixKey(in)
		if err != nil || key != want[0] || typ != want[1] {
			t.Errorf("%q: %q %q %v, want %v", in, key, typ, err, want)
		}
	}
	for _, in := range []string{"", "123.456.789-00", "11912345678", "12.345.678/0001-00", "+1 555 1234567", "+55 11 91234-5678",
		"+5511", "nome@", "@dominio.com", strings.Repeat("a", 70) + "@dominio.com", "123e4567-e12b-12d1-a456", "chave qualquer"} {
		if key, typ, err := NormalizePixKey(in); err == nil {
			t.Errorf("%q accepted as %q (%s)", in, key, typ)
		}
	}
}

func TestPixText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"São Paulo", PixMaxMerchantCity, "SAO PAULO"},
		{"  Escola   Pequeno Príncipe Ltda. ", PixMaxMerchantName, "ESCOLA PEQUENO PRINCIPE L"},
		{"Açaí & Cia (filial)", PixMaxMerchantName, "ACAI & CIA FILIAL"},
		{"Florianópolis do Sul", PixMaxMerchantCity, "FLORIANOPOLIS D"},
		{"Itaú — ", PixMaxMerchantCity, "ITAU"},
	} {
		if got := PixText(c.in, c.max); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// exact payload in the PNG.
func TestPixQRPNGReadsBack(t *testing.T) {
	t.Parallel()
	payload, err := EncodePix(PixCode{Key: "cobranca@escola.com.br", MerchantName: "ESCOLA EXEMPLO", MerchantCity: "SAO PAULO", TxID: "KB0000000000000000000000A", AmountCents: 103550})
	if err != nil {
		t.Fatal(err)
	}
	img, err := PixQRPNG(payload)
	if err != nil {
		t.Fatal(err)
	}
	if got := braziltest.ReadQR(t, img); got != payload {
		t.Errorf("QR reads %q, want %q", got, payload)
	}
}

// testCPF is a CPF of base number n (9 digits) with its two check digits,
// computed here with the Receita's weights written out (10..2, 11..2).
func testCPF(n int) string {
	if n%111111111 == 0 {
		n++ // one repeated digit is a placeholder, refused as a key
	}
	s := fmt.Sprintf("%09d", n)
	for _, first := range []int{10, 11} {
		sum := 0
		for i := range s {
			sum += int(s[i]-'0') * (first - i)
		}
		d := sum * 10 % 11 % 10
		s += string(rune('0' + d))
	}
	return s
}

// testCNPJ is a CNPJ of base number n (8 digits), branch 0001, with its
// check digits (weights 5..2 9..2, then 6..2 9..2).
func testCNPJ(n int) string {
	s := fmt.Sprintf("%08d0001", n)
	for _, w := range [][]int{{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}, {6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}} {
		sum := 0
		for i := range w {
			sum += int(s[i]-'0') * w[i]
		}
		d := 11 - sum%11
		if d >= 10 {
			d = 0
		}
		s += string(rune('0' + d))
	}
	return s
}
