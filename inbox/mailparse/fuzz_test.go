package mailparse

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: no input panics Parse, and whatever it accepts yields clean
// strings and attachments whose sizes are their lengths. The seed corpus
// is every fixture of the Inbox plus a few malformed shapes.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "mail", "*.eml"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	for _, s := range []string{
		"",
		"From: a@b\r\n\r\n",
		"Content-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\nContent-Type: message/rfc822\r\n\r\nFrom: x@y\r\n\r\nhi\r\n--a--\r\n",
		"Content-Type: multipart/alternative; boundary=\"\"\r\n\r\n--\r\n",
		"Subject: =?utf-8?q?=ZZ?= =?x-bogus?b?////?=\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=\r\n=4",
		"Content-Type: text/plain; charset=\"utf-16\"\r\nContent-Transfer-Encoding: base64\r\n\r\n//4=\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := Parse(raw)
		if err != nil {
			return
		}
		checkClean(t, m)
		var check func(*Message)
		check = func(m *Message) {
			for _, a := range m.Attachments {
				if a.Size != int64(len(a.Data)) {
					t.Fatalf("size %d for %d bytes", a.Size, len(a.Data))
				}
			}
			for _, e := range m.Embedded {
				check(e)
			}
		}
		check(m)
	})
}
