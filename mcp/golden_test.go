package mcp_test

// Golden tests of the HTTP transport: every file in testdata/golden is a
// txtar archive of request/response pairs run against the fixture handler
// of fixture_test.go.
//
// File layout:
//
//	Prose comment: what the cases pin and the seed / decision line they come from.
//	-- request --          (or "-- request 2 --", "-- request foo --", ...)
//	POST /mcp              method and target
//	Content-Type: application/json
//	MCP-Protocol-Version: 2026-07-28
//	                       blank line
//	{"jsonrpc":"2.0",...}  body: everything after the blank line, minus the
//	                       final newline txtar adds
//	-- response --         (paired with the request of the same suffix)
//	HTTP/1.1 200 OK
//	Cache-Control: no-store
//	Content-Type: application/json
//	MCP-Protocol-Version: 2026-07-28
//
//	{"jsonrpc":"2.0",...}  the exact body, byte for byte (plus txtar's newline)
//
// Request header lines are sent as written, one Header.Add per line (so a
// repeated line is a repeated header). A value written as a Go-quoted string
// ("  read_items  ") is unquoted first, to carry leading or trailing white
// space. A "Host:" line sets the request's host (default example.com).
// Harness directives, also in the header block, start with "@":
//
//	@content-length: N   the declared Content-Length (-1: unknown, as with a
//	                     chunked body, so only the bytes that arrive count)
//	@pad-to: N           pad the body with trailing spaces to N bytes
//	@go-quoted-body: true
//	                     the body is a Go string literal, for bytes a text
//	                     file should not hold (invalid UTF-8)
//
// The response lists the headers that matter, in a fixed order, when present:
// Content-Type, Cache-Control, MCP-Protocol-Version, Allow, Retry-After,
// WWW-Authenticate, Access-Control-Allow-Origin. Mcp-Session-Id must never be
// present: every case fails if it is, whatever the file says.
//
// go test ./mcp -run TestGolden -update rewrites the response sections from
// what the handler actually answers. Cases marked "KNOWN BUG" in a file's
// comment hold the answer the specification asks for, not the current one;
// -update would overwrite them, so restore them by hand after updating.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the response sections of testdata/golden/*.txtar from the handler's actual answers")

// archive is a parsed txtar file.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name string
	data string
}

// parseArchive reads the txtar format: a comment, then sections opened by
// "-- name --" lines.
func parseArchive(data string) archive {
	var a archive
	cur := -1
	var b strings.Builder
	flush := func() {
		if cur < 0 {
			a.comment = b.String()
		} else {
			a.files[cur].data = b.String()
		}
		b.Reset()
	}
	for len(data) > 0 {
		line := data
		if i := strings.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = ""
		}
		if name, ok := marker(line); ok {
			flush()
			a.files = append(a.files, archiveFile{name: name})
			cur = len(a.files) - 1
			continue
		}
		b.WriteString(line)
	}
	flush()
	if a.comment != "" && !strings.HasSuffix(a.comment, "\n") {
		a.comment += "\n"
	}
	return a
}

func marker(line string) (string, bool) {
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, "-- ") || !strings.HasSuffix(line, " --") || len(line) < 6 {
		return "", false
	}
	return strings.TrimSpace(line[3 : len(line)-3]), true
}

func formatArchive(a archive) string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.WriteString(f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// parseRequest builds the HTTP request a "-- request --" section describes.
func parseRequest(t *testing.T, section string) *http.Request {
	t.Helper()
	head, body, _ := strings.Cut(section, "\n\n")
	body = strings.TrimSuffix(body, "\n")
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	method, target, ok := strings.Cut(lines[0], " ")
	if !ok {
		t.Fatalf("request line %q: want METHOD TARGET", lines[0])
	}
	header := http.Header{}
	host := ""
	contentLength := int64(-2)
	padTo := -1
	quotedBody := false
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("header line %q: want Name: value", l)
		}
		value = strings.TrimPrefix(value, " ")
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			uq, err := strconv.Unquote(value)
			if err != nil {
				t.Fatalf("header line %q: %v", l, err)
			}
			value = uq
		}
		switch {
		case name == "@content-length":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			contentLength = n
		case name == "@pad-to":
			n, err := strconv.Atoi(value)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			padTo = n
		case name == "@go-quoted-body":
			quotedBody = value == "true"
		case strings.HasPrefix(name, "@"):
			t.Fatalf("unknown directive %q", name)
		case strings.EqualFold(name, "Host"):
			host = value
		default:
			header.Add(name, value)
		}
	}
	if quotedBody {
		uq, err := strconv.Unquote(body)
		if err != nil {
			t.Fatalf("@go-quoted-body: %v", err)
		}
		body = uq
	}
	if padTo >= 0 {
		if len(body) > padTo {
			t.Fatalf("@pad-to: %d, but the body already has %d bytes", padTo, len(body))
		}
		body += strings.Repeat(" ", padTo-len(body))
	}
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header = header
	if host != "" {
		r.Host = host
	}
	r.ContentLength = int64(len(body))
	if contentLength != -2 {
		r.ContentLength = contentLength
	}
	return r
}

// shownHeaders are the response headers a golden response lists, in order.
var shownHeaders = []string{
	"Content-Type",
	"Cache-Control",
	"MCP-Protocol-Version",
	"Allow",
	"Retry-After",
	"WWW-Authenticate",
	"Access-Control-Allow-Origin",
}

// headerValues reads a response header whatever the spelling of its key
// (the handler writes some keys uncanonicalised, as the spec spells them).
func headerValues(h http.Header, name string) []string {
	var out []string
	for k, vs := range h {
		if strings.EqualFold(k, name) {
			out = append(out, vs...)
		}
	}
	return out
}

// renderResponse writes a recorded answer in the golden form.
func renderResponse(rec *httptest.ResponseRecorder) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\n", rec.Code, http.StatusText(rec.Code))
	h := rec.Result().Header
	for _, name := range shownHeaders {
		for _, v := range headerValues(h, name) {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	b.WriteByte('\n')
	if body := rec.Body.String(); body != "" {
		b.WriteString(body)
		b.WriteByte('\n')
	}
	return b.String()
}

// checkInvariants holds for every answer, whatever the golden file says.
func checkInvariants(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	h := rec.Result().Header
	if v := headerValues(h, "Mcp-Session-Id"); len(v) > 0 {
		t.Errorf("response carries Mcp-Session-Id %q: the server is stateless and must never mint a session", v)
	}
	if v := headerValues(h, "Cache-Control"); len(v) != 1 || v[0] != "no-store" {
		t.Errorf("Cache-Control = %q, want exactly no-store", v)
	}
	if v := headerValues(h, "MCP-Protocol-Version"); len(v) != 1 {
		t.Errorf("MCP-Protocol-Version = %q, want exactly one value", v)
	}
	if body := rec.Body.Bytes(); len(body) > 0 {
		if !json.Valid(body) {
			t.Errorf("body is not valid JSON: %s", body)
		}
		if v := headerValues(h, "Content-Type"); len(v) != 1 || v[0] != "application/json" {
			t.Errorf("Content-Type = %q, want application/json", v)
		}
		var compact bytes.Buffer
		if json.Compact(&compact, body) == nil && !bytes.Equal(compact.Bytes(), body) {
			t.Errorf("body is not compact JSON: %s", body)
		}
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	h := goldenHandler()
	total := 0
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(string(raw))
			if strings.TrimSpace(a.comment) == "" {
				t.Errorf("%s: every golden file starts with a comment saying what it pins", file)
			}
			responses := map[string]int{}
			for i, f := range a.files {
				if suffix, ok := strings.CutPrefix(f.name, "response"); ok {
					responses[suffix] = i
				}
			}
			var out []archiveFile
			cases := 0
			for _, f := range a.files {
				suffix, isRequest := strings.CutPrefix(f.name, "request")
				if !isRequest {
					if _, isResponse := strings.CutPrefix(f.name, "response"); !isResponse {
						t.Errorf("%s: unexpected section %q", file, f.name)
						out = append(out, f)
					}
					continue
				}
				cases++
				label := "request" + suffix
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, parseRequest(t, f.data))
				got := renderResponse(rec)
				t.Run(strings.ReplaceAll(strings.TrimSpace(label), " ", "_"), func(t *testing.T) {
					checkInvariants(t, rec)
				})
				out = append(out, f, archiveFile{name: "response" + suffix, data: got})
				if *update {
					continue
				}
				idx, ok := responses[suffix]
				if !ok {
					t.Errorf("%s: %s has no response section; actual:\n%s", file, label, got)
					continue
				}
				if want := a.files[idx].data; want != got {
					t.Errorf("%s: %s\n--- want\n%s--- got\n%s", file, label, want, got)
				}
			}
			total += cases
			if *update {
				a.files = out
				if err := os.WriteFile(file, []byte(formatArchive(a)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	t.Logf("%d golden cases in %d files", total, len(files))
}

func TestArchiveRoundTrip(t *testing.T) {
	t.Parallel()
	in := "comment\n-- request --\nPOST /mcp\n\n{}\n-- response --\nHTTP/1.1 202 Accepted\n\n"
	a := parseArchive(in)
	if a.comment != "comment\n" || len(a.files) != 2 || a.files[0].data != "POST /mcp\n\n{}\n" {
		t.Fatalf("parsed %#v", a)
	}
	if got := formatArchive(a); got != in {
		t.Fatalf("round trip: %q", got)
	}
}
