// Package csvsafe writes CSV files that are safe to open in a spreadsheet:
// a cell a spreadsheet would take for a formula ("CSV injection", OWASP's
// "CSV Injection" page) is written as text, prefixed with a single quote.
//
// The rule (docs/decisions.md "Exports safe to open"): a cell is
// neutralised when its first character is one of = + - @ TAB (0x09) or
// CR (0x0D) — OWASP's list — or when it starts with spaces or other
// Unicode white space followed by one of those, since some spreadsheets
// trim leading spaces on import before they evaluate. A cell that is
// wholly a plain decimal number ("-12.50", "+3", "1234,56") is left as it
// is: a spreadsheet reads it as that number, never as a formula, and the
// amounts the server formats stay numbers. Quoting a cell that holds the
// separator, a quote or a line break is encoding/csv's (RFC 4180), so a
// value cannot open a new cell whose first character would escape the
// rule.
package csvsafe

import (
	"encoding/csv"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// triggers are the first characters a spreadsheet evaluates a cell on
// (OWASP "CSV Injection").
const triggers = "=+-@\t\r"

// Cell is s as a spreadsheet reads it as text: s prefixed with "'" when
// a spreadsheet could evaluate it (see the package's rule), s itself
// otherwise.
func Cell(s string) string {
	if NeedsQuote(s) {
		return "'" + s
	}
	return s
}

// NeedsQuote reports whether a spreadsheet could take s for a formula:
// its first character, or its first after leading white space, is one of
// = + - @ TAB CR, and s is not a plain decimal number.
func NeedsQuote(s string) bool {
	if s == "" {
		return false
	}
	if strings.IndexByte(triggers, s[0]) >= 0 {
		return !plainNumber(s)
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsSpace(r) {
		return false
	}
	rest := strings.TrimLeftFunc(s, unicode.IsSpace)
	return rest != "" && strings.IndexByte(triggers, rest[0]) >= 0 && !plainNumber(rest)
}

// plainNumber reports whether s is an optional sign, digits and at most
// one '.' or ',' followed by digits: a number, never a formula.
func plainNumber(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	digits, sep := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case (c == '.' || c == ',') && !sep && digits > 0 && i < len(s)-1:
			sep = true
		default:
			return false
		}
	}
	return digits > 0
}

// Writer is an encoding/csv Writer that neutralises every cell it writes
// (Cell), unless it was made Raw.
type Writer struct {
	*csv.Writer
	raw bool
}

// NewWriter writes safe CSV to w; set Comma and UseCRLF on it as on a
// csv.Writer.
func NewWriter(w io.Writer) *Writer { return &Writer{Writer: csv.NewWriter(w)} }

// NewRawWriter writes every cell verbatim: UNSAFE to open in a
// spreadsheet, for a caller who asked for raw cells by name.
func NewRawWriter(w io.Writer) *Writer { return &Writer{Writer: csv.NewWriter(w), raw: true} }

// Raw reports whether the writer leaves cells verbatim.
func (w *Writer) Raw() bool { return w.raw }

// Write writes one record, each cell neutralised unless the writer is
// raw. The record passed is not changed.
func (w *Writer) Write(record []string) error {
	if w.raw {
		return w.Writer.Write(record)
	}
	out, copied := record, false
	for i, c := range record {
		if NeedsQuote(c) {
			if !copied {
				out, copied = append([]string(nil), record...), true
			}
			out[i] = "'" + c
		}
	}
	return w.Writer.Write(out)
}

// WriteAll writes every record through Write and flushes.
func (w *Writer) WriteAll(records [][]string) error {
	for _, r := range records {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}
