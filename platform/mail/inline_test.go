package mail

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/messaging"
)

// TestSendInlineImage: an inline image travels inside the message as a
// part of a multipart/related with its Content-ID, beside the text and
// HTML alternatives, byte for byte; without HTML it is refused.
func TestSendInlineImage(t *testing.T) {
	t.Parallel()
	b := &backend{}
	c := newTestClient(t, startRelay(t, b, relayOptions{}), nil)
	img := []byte("\x89PNG\r\n\x1a\n not really a png, but bytes to carry \x00\xff")
	m := reminder()
	m.HTML = `<p>Pague com o QR:</p><img src="cid:pix-qr" alt="QR Code Pix">`
	m.Inline = []messaging.Inline{{ContentID: "pix-qr", Filename: "pix.png", ContentType: "image/png", Data: img}}
	if _, err := c.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(b.messages()[0].data))
	if err != nil {
		t.Fatal(err)
	}
	var found, related bool
	var walk func(ct string, body io.Reader)
	walk = func(ct string, body io.Reader) {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatal(err)
		}
		if mt == "multipart/related" {
			related = true
		}
		if !strings.HasPrefix(mt, "multipart/") {
			return
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pct := p.Header.Get("Content-Type")
			if strings.HasPrefix(pct, "image/png") {
				data, err := io.ReadAll(p) // multipart.Part decodes quoted-printable only
				if err != nil {
					t.Fatal(err)
				}
				if p.Header.Get("Content-Transfer-Encoding") == "base64" {
					data, err = decodeBase64(data)
					if err != nil {
						t.Fatal(err)
					}
				}
				found = p.Header.Get("Content-Id") == "<pix-qr>" && bytes.Equal(data, img) && related
				continue
			}
			walk(pct, p)
		}
	}
	walk(msg.Header.Get("Content-Type"), msg.Body)
	if !found {
		t.Fatalf("no inline image pix-qr in a multipart/related:\n%s", b.messages()[0].data)
	}
	m.HTML = ""
	if _, err := c.Send(context.Background(), m); err == nil {
		t.Error("an inline image without HTML was sent")
	}
}

func decodeBase64(b []byte) ([]byte, error) {
	return io.ReadAll(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(bytes.Join(bytes.Fields(b), nil))))
}
