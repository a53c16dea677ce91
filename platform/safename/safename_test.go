package safename

import (
	"errors"
	"mime"
	"strings"
	"testing"
)

// TestFileRefuses: the probe and every way a file name can be a
// path or hide what it is are refused, each with its reason.
func TestFileRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, why string }{
		{"\u202ecsv.exe", "U+202E"},
		{"a\u2066b.csv", "U+2066"},
		{"a\u200fb.csv", "U+200F"},
		{"a\u061cb.csv", "U+061C"},
		{"..", "only dots"},
		{".", "only dots"},
		{" ... ", "only dots"},
		{"../x", "path separator"},
		{"a/b", "path separator"},
		{`a\b`, "path separator"},
		{`..\..\boot.ini`, "path separator"},
		{"a\x00.csv", "U+0000"},
		{"a\r\nContent-Type: text-html.csv", "U+000D"},
		{"a\nb.csv", "U+000A"},
		{"a\x7f.csv", "U+007F"},
		{"a\xff.csv", "not UTF-8"},
		{"", "empty"},
		{strings.Repeat("a", 252) + ".csv", "longer than 255"},
	}
	for _, tt := range tests {
		got, err := File(tt.in)
		if !errors.Is(err, ErrFileName) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("File(%q) = %q, %v; want ErrFileName saying %q", tt.in, got, err, tt.why)
		}
	}
}

// TestFileAccepts: ordinary names, accents and dots inside a name pass,
// trimmed.
func TestFileAccepts(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"recebíveis-março.csv":  "recebíveis-março.csv",
		" relatório final.pdf ": "relatório final.pdf",
		"a..b.csv":              "a..b.csv",
		".env":                  ".env",
		"Nota Fiscal (1).xml":   "Nota Fiscal (1).xml",
	} {
		if got, err := File(in); err != nil || got != want {
			t.Errorf("File(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestDisplay removes controls and bidi characters, keeps the rest.
func TestDisplay(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Claude\u202e edoC":     "Claude edoC",
		" Cursor\r\nEvil: yes ": "CursorEvil: yes",
		"App\x00\ufffd\u2067 X": "App X",
		"Aplicação Ágil":        "Aplicação Ágil",
	} {
		if got := Display(in); got != want {
			t.Errorf("Display(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestContentDisposition: the header is one line whatever the name, the
// fallback is quoted ASCII, and filename* decodes back to the name.
func TestContentDisposition(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"recebíveis março.csv": "recebíveis março.csv",
		"a;b=c,d's.csv":        "a;b=c,d's.csv",
		"\u202ecsv.exe":        "csv.exe",
		"x\r\nSet-Cookie: a=b": "xSet-Cookie: a=b",
		`50% "off".csv`:        `50% "off".csv`,
	} {
		h := ContentDisposition(in)
		if strings.ContainsAny(h, "\r\n\x00\u202e") {
			t.Fatalf("%q: header %q", in, h)
		}
		typ, params, err := mime.ParseMediaType(h)
		if err != nil || typ != "attachment" {
			t.Fatalf("%q: %q does not parse: %v", in, h, err)
		}
		// mime decodes filename* (RFC 2231) into "filename".
		if params["filename"] != want {
			t.Errorf("%q: header %q names %q, want %q", in, h, params["filename"], want)
		}
	}
}
