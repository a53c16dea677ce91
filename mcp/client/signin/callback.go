package signin

import (
	"fmt"
	"html"
	"net/http"
)

// callback is the loopback redirect's handler. It takes the first answer
// that carries this sign-in's state (and, when the server sends one, its
// issuer); any other request is refused and the wait goes on, so a stray
// or forged redirect neither ends the sign-in nor gets a code in.
type callback struct {
	state, issuer string
	// issRequired: the server said it sends iss (RFC 9207), so an
	// answer without it is refused too.
	issRequired bool
	// result holds the first acceptable answer; later ones are dropped.
	result chan callbackResult
}

type callbackResult struct {
	code string
	err  error
}

func newCallback(state, issuer string, issRequired bool) *callback {
	return &callback{state: state, issuer: issuer, issRequired: issRequired, result: make(chan callbackResult, 1)}
}

func (c *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != CallbackPath || r.Method != http.MethodGet {
		callbackPage(w, http.StatusNotFound, "Not found", "This is kobana-mcp's sign-in address; nothing else is here.")
		return
	}
	q := r.URL.Query()
	if q.Get("state") != c.state {
		callbackPage(w, http.StatusBadRequest, "Not this sign-in",
			"This answer does not carry the state of the sign-in the terminal is waiting for, so it was refused. The terminal keeps waiting.")
		return
	}
	iss, hasIss := q["iss"]
	if (hasIss || c.issRequired) && (len(iss) != 1 || iss[0] != c.issuer) {
		callbackPage(w, http.StatusBadRequest, "Wrong authorization server",
			fmt.Sprintf("This answer does not come from %s, the server the sign-in started at (RFC 9207), so it was refused. The terminal keeps waiting.", c.issuer))
		return
	}
	var res callbackResult
	switch {
	case q.Get("error") != "":
		res.err = fmt.Errorf("the authorization server answered %s: %s", q.Get("error"), q.Get("error_description"))
		callbackPage(w, http.StatusOK, "Not signed in", "The sign-in ended without access ("+q.Get("error")+"). You can close this tab.")
	case q.Get("code") == "":
		callbackPage(w, http.StatusBadRequest, "No code", "This answer carries no authorization code. The terminal keeps waiting.")
		return
	default:
		res.code = q.Get("code")
		callbackPage(w, http.StatusOK, "Signed in", "You can close this tab and go back to the terminal.")
	}
	select {
	case c.result <- res:
	default:
	}
}

// callbackPage is the small page the browser shows at the redirect.
func callbackPage(w http.ResponseWriter, status int, title, text string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>%s</title><h1 id=\"title\" data-status=\"%d\">%s</h1><p id=\"text\">%s</p>\n",
		html.EscapeString(title), status, html.EscapeString(title), html.EscapeString(text))
}
