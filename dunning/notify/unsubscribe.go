package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/kobana/kobana-mcp/dunning/ledger"
)

// Unsubscribe links. Every e-mail to a debtor carries a link of the
// product (in its last line and, when the public URL is https, in
// List-Unsubscribe with RFC 8058's one-click POST) that opts the debtor
// out of e-mail. The link is the debtor and channel signed with a key
// derived from the deployment secret, so every replica accepts every
// link, nothing is stored per message, and a link cannot be forged or
// changed to another debtor.

// unsubscribeVersion prefixes what a token signs, so a later format is
// told apart.
const unsubscribeVersion = "u1"

// unsubscribeToken is the token of debtor's link for channel: the
// organization, debtor and channel in base64url, a dot, and the
// HMAC-SHA256 of them.
func (n *Notifier) unsubscribeToken(orgID, debtorID, channel string) string {
	payload := unsubscribeVersion + "|" + orgID + "|" + debtorID + "|" + channel
	mac := hmac.New(sha256.New, n.unsubscribeKey)
	mac.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// unsubscribeURL is the public link of the token.
func (n *Notifier) unsubscribeURL(orgID, debtorID, channel string) string {
	return n.linkBase + ledger.APIBase + "/unsubscribe/" + n.unsubscribeToken(orgID, debtorID, channel)
}

// errBadToken is a token that does not verify.
var errBadToken = errors.New("dunning: unsubscribe token does not verify")

// parseUnsubscribeToken verifies a token and returns what it names.
func (n *Notifier) parseUnsubscribeToken(token string) (orgID, debtorID, channel string, err error) {
	p, sig, ok := strings.Cut(token, ".")
	if !ok {
		return "", "", "", errBadToken
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return "", "", "", errBadToken
	}
	mac := hmac.New(sha256.New, n.unsubscribeKey)
	mac.Write(payload)
	if !hmac.Equal(mac.Sum(nil), got) {
		return "", "", "", errBadToken
	}
	parts := strings.Split(string(payload), "|")
	if len(parts) != 4 || parts[0] != unsubscribeVersion {
		return "", "", "", errBadToken
	}
	return parts[1], parts[2], parts[3], nil
}

// UnsubscribeReason is the reason an opt-out through the link records.
const UnsubscribeReason = "unsubscribe link"

// MountUnsubscribe serves the links: GET shows a page with one button,
// POST opts out (the button's form, and mail clients' RFC 8058 one-click
// POST). A GET never opts out by itself: mail scanners and link previews
// fetch every link of a message, and a debtor must not be unsubscribed by
// a robot. No token, cookie or login is needed: the signed link is the
// authority. Both answer 404 for a link that does not verify or whose
// debtor is gone.
func (n *Notifier) MountUnsubscribe(mux *http.ServeMux) {
	path := ledger.APIBase + "/unsubscribe/{token}"
	mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
		orgID, debtorID, channel, err := n.parseUnsubscribeToken(r.PathValue("token"))
		if err != nil {
			unsubscribePage(w, http.StatusNotFound, pageData{Title: "Link inválido", Text: "Este link de descadastro não é válido."})
			return
		}
		d, err := ledger.GetDebtor(r.Context(), n.DB, orgID, debtorID)
		if err != nil {
			unsubscribePage(w, http.StatusNotFound, pageData{Title: "Link inválido", Text: "Este link de descadastro não é válido."})
			return
		}
		if d.OptedOut(channel) {
			unsubscribePage(w, http.StatusOK, pageData{Title: "Descadastro confirmado", Text: "Você não receberá mais mensagens de cobrança por " + ChannelWord(channel) + "."})
			return
		}
		unsubscribePage(w, http.StatusOK, pageData{Title: "Parar de receber mensagens",
			Text: "Confirme para não receber mais mensagens de cobrança por " + ChannelWord(channel) + ".", Form: true})
	})
	mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		orgID, debtorID, channel, err := n.parseUnsubscribeToken(r.PathValue("token"))
		if err == nil {
			_, err = ledger.GetDebtor(r.Context(), n.DB, orgID, debtorID)
		}
		if err != nil {
			unsubscribePage(w, http.StatusNotFound, pageData{Title: "Link inválido", Text: "Este link de descadastro não é válido."})
			return
		}
		if err := RecordOptOut(r.Context(), n.DB, orgID, debtorID, channel, UnsubscribeReason, "debtor", n.Clock()); err != nil {
			n.Log.ErrorContext(r.Context(), "dunning: unsubscribe", "error", err)
			unsubscribePage(w, http.StatusInternalServerError, pageData{Title: "Tente de novo", Text: "Não foi possível registrar agora. Tente de novo em instantes."})
			return
		}
		unsubscribePage(w, http.StatusOK, pageData{Title: "Descadastro confirmado", Text: "Você não receberá mais mensagens de cobrança por " + ChannelWord(channel) + "."})
	})
}

func ChannelWord(channel string) string {
	switch channel {
	case ledger.ChannelEmail:
		return "e-mail"
	case ledger.ChannelSMS:
		return "SMS"
	case ledger.ChannelWhatsApp:
		return "WhatsApp"
	}
	return channel
}

type pageData struct {
	Title, Text string
	Form        bool
}

var unsubscribeTemplate = template.Must(template.New("unsubscribe").Parse(`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>{{.Title}}</title></head>
<body style="font-family: sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem">
<h1 id="title">{{.Title}}</h1><p id="text">{{.Text}}</p>
{{if .Form}}<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button id="confirm" type="submit">Parar de receber</button></form>{{end}}
</body></html>
`))

func unsubscribePage(w http.ResponseWriter, status int, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	w.WriteHeader(status)
	_ = unsubscribeTemplate.Execute(w, d)
}
