package pagetext

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"
)

// TestEveryKeyInBothLanguages: every message of the catalogue is written
// in both languages, with the same arguments, and the printers find it.
func TestEveryKeyInBothLanguages(t *testing.T) {
	t.Parallel()
	verbs := regexp.MustCompile(`%[a-z]`)
	for _, k := range Keys() {
		e := table[k]
		if strings.TrimSpace(e.pt) == "" || strings.TrimSpace(e.en) == "" {
			t.Errorf("%s: pt-BR %q, en %q: both are needed", k, e.pt, e.en)
		}
		if (e.ptOne == "") != (e.enOne == "") {
			t.Errorf("%s: a singular form in one language only", k)
		}
		for _, pair := range [][2]string{{e.pt, e.en}, {e.ptOne, e.enOne}} {
			if a, b := strings.Join(verbs.FindAllString(pair[0], -1), ""), strings.Join(verbs.FindAllString(pair[1], -1), ""); a != b {
				t.Errorf("%s: arguments %q in pt-BR, %q in en", k, a, b)
			}
		}
		for _, tag := range []language.Tag{PortugueseBR, English} {
			// A message the catalogue lacks prints its key.
			if got := In(tag).Say(k, 3, "x"); strings.HasPrefix(got, string(k)) {
				t.Errorf("%s: not in the %s catalogue (printed %q)", k, tag, got)
			}
		}
	}
}

// TestEveryKeyConstantIsInTheCatalogue: each Key constant of keys.go
// names a message of the table.
func TestEveryKeyConstantIsInTheCatalogue(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "keys.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for _, name := range vs.Names {
			n++
			lit := strings.Trim(vs.Values[0].(*ast.BasicLit).Value, `"`)
			if _, ok := table[Key(lit)]; !ok {
				t.Errorf("%s = %q is not in the catalogue", name.Name, lit)
			}
		}
		return true
	})
	if n < 50 {
		t.Fatalf("found %d constants in keys.go", n)
	}
}

// TestLanguageFromAcceptLanguage: Brazilian Portuguese unless the browser
// prefers English; any Portuguese is Brazilian Portuguese here.
func TestLanguageFromAcceptLanguage(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"":                         "pt-BR",
		"pt-BR,pt;q=0.9":           "pt-BR",
		"pt-PT":                    "pt-BR",
		"en-US,en;q=0.9":           "en",
		"en-GB":                    "en",
		"fr-FR,fr;q=0.9":           "pt-BR",
		"fr-FR,en;q=0.5":           "en",
		"de;q=0.9, pt-BR;q=0.8":    "pt-BR",
		"es-AR, en;q=0.7, pt;q=.6": "en",
		"not a header ;;; q=x":     "pt-BR",
	} {
		if got := ForHeader(header).Lang(); got != want {
			t.Errorf("Accept-Language %q: %s, want %s", header, got, want)
		}
	}
}

func TestMinutesAndTimes(t *testing.T) {
	t.Parallel()
	pt, en := In(PortugueseBR), In(English)
	for _, c := range []struct {
		d      time.Duration
		pt, en string
	}{
		{10 * time.Minute, "em 10 minutos", "in 10 minutes"},
		{9*time.Minute + time.Second, "em 10 minutos", "in 10 minutes"},
		{90 * time.Second, "em 2 minutos", "in 2 minutes"},
		{time.Minute, "em menos de 1 minuto", "in less than a minute"},
		{time.Second, "em menos de 1 minuto", "in less than a minute"},
	} {
		if got := pt.Minutes(c.d); got != c.pt {
			t.Errorf("pt-BR %s: %q, want %q", c.d, got, c.pt)
		}
		if got := en.Minutes(c.d); got != c.en {
			t.Errorf("en %s: %q, want %q", c.d, got, c.en)
		}
	}
	at := time.Date(2026, 3, 14, 18, 4, 5, 0, time.UTC)
	sp := time.FixedZone("-03", -3*3600)
	if got := pt.Time(at, sp); got != "14/03/2026 15:04:05 -03" {
		t.Errorf("pt-BR time %q", got)
	}
	if got := en.Time(at, sp); got != "Mar 14, 2026, 15:04:05 -03" {
		t.Errorf("en time %q", got)
	}
}

// TestStrongEscapes: arguments set in bold are escaped, and so is the
// message around them.
func TestStrongEscapes(t *testing.T) {
	t.Parallel()
	got, err := In(English).Strong("consent.lead", `<script>x</script>`, "Kadu & co")
	if err != nil {
		t.Fatal(err)
	}
	if want := "<strong>&lt;script&gt;x&lt;/script&gt;</strong> wants to use your <strong>Kadu &amp; co</strong> account."; string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if _, err := In(English).T("no.such.key"); err == nil {
		t.Error("an unknown key rendered")
	}
}

func TestPick(t *testing.T) {
	t.Parallel()
	ph := Phrase{PT: "Ver as suas tarefas", EN: "See your tasks"}
	if In(PortugueseBR).Pick(ph) != ph.PT || In(English).Pick(ph) != ph.EN {
		t.Error("Pick chose the wrong language")
	}
	if In(English).Pick(Phrase{PT: "só"}) != "só" {
		t.Error("a phrase in one language only is shown in it")
	}
}
