package notify

import (
	"html"
	"regexp"
	"strings"

	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/messaging"
)

// An e-mail that carries a Pix code shows its QR inline: the message
// gets an HTML alternative — the text, escaped, line for line — with the
// QR as an image attached by Content-ID (multipart/related), never a
// remote image a mail client would block or a tracker could count
// (docs/decisions.md "Dunning: Pix BR Code"). The text part stays the
// message as rendered.

// pixQRContentID is the Content-ID of the QR image.
const pixQRContentID = "pix-qr"

// pixQRLinkRe finds a QR link ({{pix.qr_url}}) in a message's text.
var pixQRLinkRe = regexp.MustCompile(`https?://\S+/v1/pix-qr/[A-Za-z0-9_.-]+`)

// withPixQR adds to m the HTML with payload's QR inline: in place of the
// QR link when the text has one, else after the copia e cola, else at the
// end. A payload whose QR cannot be made (it was checked when composed)
// leaves m as text only.
func withPixQR(m *messaging.Message, payload string) {
	png, err := brazil.PixQRPNG(payload)
	if err != nil {
		return
	}
	img := `<img src="cid:` + pixQRContentID + `" alt="QR Code Pix" width="240" height="240">`
	body := html.EscapeString(m.Text)
	switch {
	case pixQRLinkRe.MatchString(body):
		body = pixQRLinkRe.ReplaceAllLiteralString(body, img)
	case strings.Contains(body, html.EscapeString(payload)):
		body = strings.Replace(body, html.EscapeString(payload), html.EscapeString(payload)+"\n"+img, 1)
	default:
		body += "\n" + img
	}
	m.HTML = `<!doctype html><html lang="pt-BR"><body><div style="font-family: sans-serif; white-space: pre-wrap; word-break: break-all">` +
		body + `</div></body></html>`
	m.Inline = append(m.Inline, messaging.Inline{ContentID: pixQRContentID, Filename: "pix.png", ContentType: "image/png", Data: png})
}
