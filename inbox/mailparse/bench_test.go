package mailparse

import (
	"bytes"
	"strings"
	"testing"
)

// BenchmarkParseMultipartWithPDF parses a supplier's e-mail as it usually
// comes: text and HTML alternatives and a PDF attachment.
func BenchmarkParseMultipartWithPDF(b *testing.B) {
	raw := fixture(b, "mixed_pdf.eml")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseLargeAttachment parses a message carrying a 10 MB base64
// attachment: the cost of the largest mail the intake takes, per byte.
func BenchmarkParseLargeAttachment(b *testing.B) {
	var raw bytes.Buffer
	raw.WriteString("From: a@example.com\r\nTo: b@inbox.localhost\r\nSubject: big\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n--x\r\nContent-Type: application/octet-stream; name=big.bin\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	line := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNk", 2)[:76] + "\r\n"
	for raw.Len() < 10<<20 {
		raw.WriteString(line)
	}
	raw.WriteString("--x--\r\n")
	b.SetBytes(int64(raw.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
}
