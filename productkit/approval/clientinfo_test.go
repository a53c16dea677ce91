package approval_test

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/approval/approvaltest"
)

var (
	registeredRE = regexp.MustCompile(`<span id="client">([^<]*)</span>`)
	declaredRE   = regexp.MustCompile(`<span class="declared" id="client-info">\(o aplicativo se apresentou como «([^<]*)»\)</span>`)
)

// declaredOn reads what an approval page shows as the client's
// registered name and, beside it, its self-declared one ("" without).
func declaredOn(t *testing.T, body string) (registered, declared string) {
	t.Helper()
	m := registeredRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no registered client on the page:\n%s", body)
	}
	registered = html.UnescapeString(m[1])
	if d := declaredRE.FindStringSubmatch(body); d != nil {
		declared = html.UnescapeString(d[1])
	} else if strings.Contains(body, `id="client-info"`) {
		t.Fatalf("the declared client is not where it belongs:\n%s", body)
	}
	return registered, declared
}

// TestPageNamesTheDeclaredClient: the approval page shows the name and
// version a 2026-07-28 call carried in its envelope beside the OAuth
// client's registered name, which it never replaces; a 2025 call (no
// clientInfo per request) and a 2026 call without one show the
// registered name alone. A hostile name — markup, a NUL, line breaks, a
// bidirectional override, thousands of characters — is stored cleaned
// and bounded and shown escaped.
func TestPageNamesTheDeclaredClient(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, approvaltest.Options{})
		open := func(c call) (string, string, string) {
			t.Helper()
			l := e.link(e.do(c))
			p := e.browser().open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
			if p.status != http.StatusOK || !strings.Contains(p.body, `id="continuar"`) {
				t.Fatalf("approval page: %d\n%s", p.status, p.body)
			}
			reg, decl := declaredOn(t, p.body)
			return reg, decl, p.body
		}

		reg, decl, _ := open(call{modern: true, clientInfo: `{"name":"Claude Desktop","version":"0.9.3"}`})
		if reg != approvaltest.ClientID || decl != "Claude Desktop 0.9.3" {
			t.Errorf("registered %q, declared %q", reg, decl)
		}
		// A client calling itself by the registered name of another still
		// shows beside the real one.
		reg, decl, _ = open(call{modern: true, clientInfo: `{"name":"Banco Oficial","version":""}`})
		if reg != approvaltest.ClientID || decl != "Banco Oficial" {
			t.Errorf("registered %q, declared %q", reg, decl)
		}
		for _, c := range []call{{}, {modern: true, clientInfo: "-"}, {modern: true, clientInfo: `{"name":"","version":"1"}`}, {modern: true, clientInfo: `"not an object"`}} {
			if reg, decl, _ := open(c); reg != approvaltest.ClientID || decl != "" {
				t.Errorf("%+v: registered %q, declared %q", c, reg, decl)
			}
		}

		hostile := "<script>alert('x')</script>\u0000<img src=x onerror=alert(1)>\r\n\u202eEvil\u202c " + strings.Repeat("A", 5000)
		info, _ := json.Marshal(map[string]string{"name": hostile, "version": "1.0\"><b>bold</b>" + strings.Repeat("9", 300)})
		l := e.link(e.do(call{modern: true, clientInfo: string(info)}))
		a := e.approval(l.ApprovalID)
		if utf8.RuneCountInString(a.ClientInfoName) != 80 || !strings.HasSuffix(a.ClientInfoName, "…") || strings.ContainsAny(a.ClientInfoName, "\x00\r\n\u202e\u202c") ||
			!strings.HasPrefix(a.ClientInfoName, "<script>alert('x')</script><img src=x onerror=alert(1)> Evil AAA") {
			t.Errorf("stored name %q", a.ClientInfoName)
		}
		if utf8.RuneCountInString(a.ClientInfoVersion) != 40 || !strings.HasPrefix(a.ClientInfoVersion, `1.0"><b>bold</b>999`) {
			t.Errorf("stored version %q", a.ClientInfoVersion)
		}
		p := e.browser().open(l.ApprovalURL, approvaltest.OwnerEmail, approvaltest.OwnerPassword)
		reg, decl = declaredOn(t, p.body)
		if reg != approvaltest.ClientID || decl != a.ClientInfoName+" "+a.ClientInfoVersion {
			t.Errorf("registered %q, declared %q", reg, decl)
		}
		for _, bad := range []string{"<script>alert", "<img src=x", "<b>bold</b>", "\x00", "\u202e", strings.Repeat("A", 100)} {
			if strings.Contains(p.body, bad) {
				t.Errorf("the page holds %q unescaped or unbounded", bad)
			}
		}
		if !strings.Contains(p.body, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") {
			t.Errorf("the name is not shown escaped:\n%s", p.body)
		}
		// The lead names the registered client, not the declared one.
		if !strings.Contains(p.body, `<strong>`+approvaltest.ClientID+`</strong> pediu`) {
			t.Errorf("the lead:\n%s", p.body)
		}
	})
}
