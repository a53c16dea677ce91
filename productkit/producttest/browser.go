package producttest

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/accounts"
	"github.com/kobana/kobana-mcp/productkit"
)

// Call2025 runs an MCP tool as user over the 2025-06-18 protocol (no
// envelope, so no way to confirm a destructive tool in the chat), and
// returns the first text content and isError, or a JSON-RPC error's
// message and true.
func (e *Env) Call2025(user accounts.User, tool string, args map[string]any) (string, bool) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	_, res := e.DoToken(e.Token(user, "mcp"), "POST", productkit.MCPPath, body, "MCP-Protocol-Version", "2025-06-18", "Accept", "application/json, text/event-stream")
	return e.firstText(tool, res)
}

// firstText reads a tools/call answer: its first text content and
// isError, or a JSON-RPC error's message and true.
func (e *Env) firstText(tool, res string) (string, bool) {
	e.t.Helper()
	var out struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(res), &out); err != nil {
		e.t.Fatalf("%s: %v: %s", tool, err, res)
	}
	if out.Error != nil {
		return out.Error.Message, true
	}
	if len(out.Result.Content) == 0 {
		e.t.Fatalf("%s: no content: %s", tool, res)
	}
	return out.Result.Content[0].Text, out.Result.IsError
}

// Browser is a person's browser on the listener (Options.SignIn): a
// cookie jar, and redirects not followed, so each step can be looked at.
type Browser struct {
	// AcceptLanguage, when set, is sent with every request (a browser
	// that prefers English, say).
	AcceptLanguage string

	t testing.TB
	e *Env
	c *http.Client
}

// Page is what the browser got.
type Page struct {
	Status int
	Header http.Header
	Body   string
}

// Browser returns a browser with no session.
func (e *Env) Browser() *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{t: e.t, e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *Browser) do(req *http.Request) Page {
	b.t.Helper()
	if b.AcceptLanguage != "" {
		req.Header.Set("Accept-Language", b.AcceptLanguage)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return Page{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
}

// Get loads u (a path of the listener, or a URL).
func (b *Browser) Get(u string) Page {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = b.e.URL + u
	}
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.do(req)
}

// Post submits a form to u (a path of the listener, or a URL).
func (b *Browser) Post(u string, form url.Values) Page {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = b.e.URL + u
	}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// Hidden are the page's hidden form fields.
func (p Page) Hidden() url.Values {
	v := url.Values{}
	for _, m := range hiddenRE.FindAllStringSubmatch(p.Body, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// Open opens an approval link as the person with email (password
// Password): the page sends a visitor without a session to sign in, and
// the sign-in comes back to it. It returns the page.
func (b *Browser) Open(link, email string) Page {
	b.t.Helper()
	p := b.Get(link)
	if p.Status == http.StatusSeeOther && strings.HasPrefix(p.Header.Get("Location"), "/oauth/sign-in?") {
		form := b.Get(p.Header.Get("Location")).Hidden()
		if form.Get("next") == "" {
			b.t.Fatalf("the sign-in page does not return to %s", link)
		}
		form.Set("email", email)
		form.Set("password", Password)
		if done := b.Post("/oauth/sign-in", form); done.Status != http.StatusSeeOther || done.Header.Get("Location") != pathOf(link) {
			b.t.Fatalf("sign-in as %s: %d to %q\n%s", email, done.Status, done.Header.Get("Location"), done.Body)
		}
		p = b.Get(link)
	}
	return p
}

// Decide presses a button of an approval page: "continuar" or
// "cancelar".
func (b *Browser) Decide(approvalPage Page, link, decision string) Page {
	b.t.Helper()
	form := approvalPage.Hidden()
	form.Set("decision", decision)
	return b.Post(pathOf(link), form)
}

func pathOf(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return link
	}
	return u.Path
}
