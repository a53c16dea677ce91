package mailparse

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fixture reads one of the Inbox's test messages (inbox/testdata/mail).
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "mail", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t *testing.T, raw []byte) *Message {
	t.Helper()
	m, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return m
}

func TestParseMixedWithPDF(t *testing.T) {
	t.Parallel()
	m := mustParse(t, fixture(t, "mixed_pdf.eml"))
	if m.MessageID != "boleto-0001@fornecedor.example" || m.Subject != "Boleto fevereiro/2026" {
		t.Fatalf("id %q subject %q", m.MessageID, m.Subject)
	}
	if m.From == nil || m.From.Address != "cobranca@fornecedor.example" || m.From.Name != "Fornecedor Exemplo" {
		t.Fatalf("from %+v", m.From)
	}
	if len(m.ReplyTo) != 1 || m.ReplyTo[0].Address != "financeiro@fornecedor.example" {
		t.Fatalf("reply-to %+v", m.ReplyTo)
	}
	if len(m.To) != 1 || m.To[0].Address != "contas@inbox.localhost" || m.To[0].Name != "Contas a Pagar" || len(m.Cc) != 1 || m.Cc[0].Address != "gerente@cliente.example" {
		t.Fatalf("to %+v cc %+v", m.To, m.Cc)
	}
	want := time.Date(2026, 3, 2, 12, 15, 0, 0, time.UTC)
	if m.Date == nil || !m.Date.Equal(want) || m.Date.Location() != time.UTC {
		t.Fatalf("date %v", m.Date)
	}
	if !strings.Contains(m.Text, "vencimento 10/03/2026, valor R$ 1.234,56") || strings.Contains(m.Text, "multi-part message") {
		t.Fatalf("text %q", m.Text)
	}
	if len(m.Attachments) != 1 {
		t.Fatalf("attachments %+v", m.Attachments)
	}
	a := m.Attachments[0]
	if a.Filename != "boleto-fevereiro.pdf" || a.ContentType != "application/pdf" || a.Inline || a.Size != int64(len(a.Data)) {
		t.Fatalf("attachment %+v", a)
	}
	if !bytes.HasPrefix(a.Data, []byte("%PDF-1.4")) || !bytes.Contains(a.Data, []byte("Linha digitavel: 23793.38128 60000.000004 03000.400006 2 10000000123456")) || !bytes.HasSuffix(a.Data, []byte("%%EOF\n")) {
		t.Fatalf("pdf not decoded intact: %q", a.Data[:20])
	}
	if m.Forwarded || m.ForwardedFor != "" || m.Header("return-path") != "<cobranca@fornecedor.example>" {
		t.Fatalf("forwarded %v %q, header %q", m.Forwarded, m.ForwardedFor, m.Header("Return-Path"))
	}
}

func TestParseLatin1(t *testing.T) {
	t.Parallel()
	m := mustParse(t, fixture(t, "latin1.eml"))
	if m.Subject != "Cobrança de março - prestação" {
		t.Fatalf("subject %q", m.Subject)
	}
	if m.From == nil || m.From.Name != "João Gonçalves" || m.From.Address != "joao@escritorio.example" {
		t.Fatalf("from %+v", m.From)
	}
	if !strings.Contains(m.Text, "Olá,") || !strings.Contains(m.Text, "prestação de serviços de manutenção.") || !strings.Contains(m.Text, "pagável até o vencimento") {
		t.Fatalf("text %q", m.Text)
	}
}

func TestParseForwardedAsAttachment(t *testing.T) {
	t.Parallel()
	m := mustParse(t, fixture(t, "forwarded_rfc822.eml"))
	if !m.Forwarded || m.ForwardedFor != "cobranca@fornecedor.example" {
		t.Fatalf("forwarded %v %q", m.Forwarded, m.ForwardedFor)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].ContentType != "message/rfc822" || m.Attachments[0].Filename != "Fatura 2026-02.eml" {
		t.Fatalf("attachments %+v", m.Attachments)
	}
	if !bytes.HasPrefix(m.Attachments[0].Data, []byte("Message-ID: <orig-0001@fornecedor.example>")) {
		t.Fatalf("attached message bytes %q", m.Attachments[0].Data[:40])
	}
	if len(m.Embedded) != 1 || m.Embedded[0].Subject != "Fatura 2026-02" {
		t.Fatalf("embedded %+v", m.Embedded)
	}
	all := m.AllAttachments()
	if len(all) != 1 || all[0].Filename != "fatura.pdf" || !bytes.HasPrefix(all[0].Data, []byte("%PDF")) {
		t.Fatalf("all attachments %+v", all)
	}
	if m.Text != "Encaminhando a fatura do fornecedor." {
		t.Fatalf("text %q", m.Text)
	}
	pt := m.PlainText()
	if !strings.Contains(pt, "Encaminhando a fatura") || !strings.Contains(pt, "From: Fornecedor Exemplo <cobranca@fornecedor.example>") || !strings.Contains(pt, "Fatura de fevereiro em anexo.") {
		t.Fatalf("plain text %q", pt)
	}
}

func TestParseForwardedInline(t *testing.T) {
	t.Parallel()
	m := mustParse(t, fixture(t, "forwarded_inline.eml"))
	if !m.Forwarded || m.ForwardedFor != "boletos@imobiliaria.example" {
		t.Fatalf("forwarded %v %q", m.Forwarded, m.ForwardedFor)
	}
	if strings.Count(m.Text, "Pode pagar") != 1 || !strings.Contains(m.Text, "Linha digitável: 23793.38128") {
		t.Fatalf("text %q", m.Text)
	}
	if !strings.Contains(m.HTML, `class="gmail_quote"`) || strings.Count(m.HTML, "Pode pagar") != 1 {
		t.Fatalf("html %q", m.HTML)
	}
	if len(m.Attachments) != 0 || len(m.Embedded) != 0 {
		t.Fatalf("attachments %+v", m.Attachments)
	}
}

func TestParseHTMLOnly(t *testing.T) {
	t.Parallel()
	m := mustParse(t, fixture(t, "html_only.eml"))
	if m.Subject != "Seu boleto de março" || m.Text != "" {
		t.Fatalf("subject %q text %q", m.Subject, m.Text)
	}
	if !strings.Contains(m.HTML, "<style>p{color:red}</style>") {
		t.Fatalf("html not as received: %q", m.HTML)
	}
	pt := m.PlainText()
	if !strings.Contains(pt, "Seu boleto de março está disponível.") || !strings.Contains(pt, "Linha digitável: 23793.38128") || strings.Contains(pt, "color") || strings.Contains(pt, "Aviso") || strings.Contains(pt, "<") {
		t.Fatalf("plain text %q", pt)
	}
}

func TestParseNestedRelated(t *testing.T) {
	t.Parallel()
	m := mustParse(t, fixture(t, "nested_related.eml"))
	if m.Text != "Seu pedido 42 foi faturado." || !strings.Contains(m.HTML, `src="cid:logo@loja"`) {
		t.Fatalf("text %q html %q", m.Text, m.HTML)
	}
	if len(m.To) != 2 || m.To[1].Address != "outro@cliente.example" || len(m.Bcc) != 1 || m.Bcc[0].Address != "arquivo@cliente.example" {
		t.Fatalf("to %+v bcc %+v", m.To, m.Bcc)
	}
	if len(m.Attachments) != 2 {
		t.Fatalf("attachments %+v", m.Attachments)
	}
	img, csv := m.Attachments[0], m.Attachments[1]
	if img.ContentType != "image/png" || !img.Inline || img.ContentID != "logo@loja" || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
		t.Fatalf("image %+v", img)
	}
	if csv.Filename != "itens do pedido.csv" || csv.ContentType != "text/csv" || csv.Inline || string(csv.Data) != "sku,qtd\r\nA1,2" {
		t.Fatalf("csv %+v %q", csv, csv.Data)
	}
}

// TestParseEveryFixture: every message the Inbox's tests send parses, and
// whatever it yields is clean text.
func TestParseEveryFixture(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "mail", "*.eml"))
	if len(files) < 6 {
		t.Fatalf("fixtures: %v", files)
	}
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		m, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if m.From == nil || m.MessageID == "" || m.Date == nil || len(m.Warnings) != 0 {
			t.Fatalf("%s: %+v", f, m)
		}
		checkClean(t, m)
	}
}

func TestParseMalformed(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		raw  string
		want error
	}{
		"empty":              {"", ErrEmpty},
		"blank":              {"\r\n\r\n", ErrEmpty},
		"no header":          {"just some text\r\nand more\r\n", nil},
		"continuation first": {" folded: x\r\n\r\nbody", nil},
		"no boundary":        {"From: a@b.example\r\nContent-Type: multipart/mixed\r\n\r\nbody\r\n", nil},
		"boundary never met": {"From: a@b.example\r\nContent-Type: multipart/mixed; boundary=zz\r\n\r\nbody without parts\r\n", nil},
	}
	for name, c := range cases {
		m, err := Parse([]byte(c.raw))
		if err == nil {
			t.Fatalf("%s: parsed: %+v", name, m)
		}
		if c.want != nil && !errors.Is(err, c.want) {
			t.Fatalf("%s: %v, want %v", name, err, c.want)
		}
	}
}

func TestParseLimits(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("From: a@b.example\r\n")
	for i := 0; i <= MaxDepth+1; i++ {
		b.WriteString("Content-Type: multipart/mixed; boundary=b" + itoa(i) + "\r\n\r\n--b" + itoa(i) + "\r\n")
	}
	b.WriteString("Content-Type: text/plain\r\n\r\ndeep\r\n")
	if _, err := Parse([]byte(b.String())); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("deep multipart: %v", err)
	}
	nested := "From: a@b.example\r\nSubject: leaf\r\n\r\nleaf\r\n"
	for i := 0; i <= MaxDepth+1; i++ {
		nested = "From: a@b.example\r\nContent-Type: message/rfc822\r\n\r\n" + nested
	}
	if _, err := Parse([]byte(nested)); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("deep attached messages: %v", err)
	}
	b.Reset()
	b.WriteString("From: a@b.example\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n")
	for i := 0; i < MaxParts+1; i++ {
		b.WriteString("--x\r\n\r\np\r\n")
	}
	b.WriteString("--x--\r\n")
	if _, err := Parse([]byte(b.String())); !errors.Is(err, ErrTooManyParts) {
		t.Fatalf("many parts: %v", err)
	}
}

func itoa(i int) string { return string(rune('a'+i/26)) + string(rune('a'+i%26)) }

// TestParseTolerated: defects real mailers produce keep the message.
func TestParseTolerated(t *testing.T) {
	t.Parallel()
	raw := "From: Loja <loja@x.example>\r\nSubject: Cobran\xe7a\x00\r\nContent-Type: multipart/mixed; boundary=q\r\n\r\n" +
		"--q\r\nContent-Type: text/plain\r\n\r\nvalor: R$ 10,00 \xe0 vista\r\n" +
		"--q\r\nContent-Type: application/octet-stream; name=\"a.bin\"\r\nContent-Transfer-Encoding: base64\r\n\r\nSGVs!bG8=\r\nIHdvcmxk\r\n" +
		"--q\r\nContent-Type: text/plain; charset=x-unknown-charset\r\nContent-Disposition: attachment; filename=\"n.txt\"\r\n\r\ncut short"
	m := mustParse(t, []byte(raw))
	if m.Subject != "Cobrança" || !strings.Contains(m.Text, "R$ 10,00 à vista") {
		t.Fatalf("subject %q text %q", m.Subject, m.Text)
	}
	if len(m.Attachments) != 2 || string(m.Attachments[0].Data) != "Hello world" || string(m.Attachments[1].Data) != "cut short" {
		t.Fatalf("attachments %+v", m.Attachments)
	}
	if len(m.Warnings) == 0 {
		t.Fatal("the unterminated part is not reported")
	}
	checkClean(t, m)
}

func TestParseHeaderOnly(t *testing.T) {
	t.Parallel()
	m := mustParse(t, []byte("From: a@b.example\r\nSubject: only a header"))
	if m.Subject != "only a header" || m.Text != "" || m.From.Address != "a@b.example" {
		t.Fatalf("%+v", m)
	}
}

func TestParseLooseAddresses(t *testing.T) {
	t.Parallel()
	m := mustParse(t, []byte("From: Silva, Jose <jose@x.example>\r\nTo: undisclosed-recipients:;\r\nCc: a@x.example, [broken <b@y.example>\r\nDate: not a date\r\n\r\nhi\r\n"))
	if m.From == nil || m.From.Address != "jose@x.example" {
		t.Fatalf("from %+v", m.From)
	}
	if len(m.To) != 0 || len(m.Cc) != 2 || m.Cc[1].Address != "b@y.example" {
		t.Fatalf("to %+v cc %+v", m.To, m.Cc)
	}
	if m.Date != nil || len(m.Warnings) != 1 {
		t.Fatalf("date %v warnings %v", m.Date, m.Warnings)
	}
}

func TestDecodeTransfer(t *testing.T) {
	t.Parallel()
	qp := map[string]string{
		"caf=C3=A9":             "café",
		"soft=\r\nbreak":        "softbreak",
		"soft= \t\nbreak":       "softbreak",
		"a = b, 100=":           "a = b, 100",
		"=zz stays":             "=zz stays",
		"lower =c3=a9":          "lower é",
		"hard\r\nline":          "hard\r\nline",
		"trailing = at the end": "trailing = at the end",
	}
	for in, want := range qp {
		if got := string(decodeQP([]byte(in))); got != want {
			t.Fatalf("qp %q: %q, want %q", in, got, want)
		}
	}
	b64 := map[string]string{
		"SGVsbG8gd29ybGQ=":            "Hello world",
		"SGVsbG8g\r\nd29ybGQ":         "Hello world",
		"SGk=SGk=":                    "HiHi",
		"SGVsbG8*gd29y bGQ==\r\n\r\n": "Hello world",
		"":                            "",
		"Q":                           "",
	}
	for in, want := range b64 {
		if got := string(decodeBase64([]byte(in))); got != want {
			t.Fatalf("base64 %q: %q, want %q", in, got, want)
		}
	}
}

func TestInlineForward(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text, from string
	}{
		{"Segue.\n\n-----Mensagem encaminhada-----\nDe: Fulano de Tal [mailto:fulano@x.example]\nEnviada em: segunda\nAssunto: boleto\n", "fulano@x.example"},
		{"-------- Mensaje reenviado --------\nAsunto: factura\nFecha: lunes\nDe: Proveedor <pagos@proveedor.example>\n", "pagos@proveedor.example"},
		{"Begin forwarded message:\n\n> From: Banco <avisos@banco.example>\n> Subject: boleto\n", "avisos@banco.example"},
		{"---------- Forwarded message ---------\n*From:* Ana <ana@a.example>\n", "ana@a.example"},
		{"-------- Forwarded Message --------\nSubject: x\nDate: y\nFrom: Thunder <t@bird.example>\n", "t@bird.example"},
	}
	for _, c := range cases {
		ok, from := inlineForward(c.text)
		if !ok || from != c.from {
			t.Fatalf("%q: %v %q", c.text, ok, from)
		}
	}
	negatives := []string{
		"I forwarded message to you yesterday.\nFrom: Ana <ana@a.example>\n",
		"---------- Forwarded message ---------\n(no sender line)\n",
		"---------- Forwarded message ---------\nFrom: only a name\n",
		"---------- Forwarded message ---------\n1\n2\n3\n4\n5\n6\n7\n8\n9\nFrom: late@x.example\n",
	}
	for _, n := range negatives {
		if ok, _ := inlineForward(n); ok {
			t.Fatalf("%q taken for a forward", n)
		}
	}
}

// checkClean fails when a string of m is not valid UTF-8 or holds a NUL.
func checkClean(t *testing.T, m *Message) {
	t.Helper()
	strs := []string{m.MessageID, m.Subject, m.Text, m.HTML, m.ForwardedFor, m.PlainText()}
	if m.From != nil {
		strs = append(strs, m.From.Name, m.From.Address)
	}
	for _, l := range [][]Address{m.To, m.Cc, m.Bcc, m.ReplyTo} {
		for _, a := range l {
			strs = append(strs, a.Name, a.Address)
		}
	}
	for _, a := range m.Attachments {
		strs = append(strs, a.Filename, a.ContentType, a.ContentID)
	}
	for _, v := range m.Headers {
		strs = append(strs, v...)
	}
	strs = append(strs, m.Warnings...)
	for _, s := range strs {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			t.Fatalf("unclean string %q", s)
		}
	}
	for _, e := range m.Embedded {
		checkClean(t, e)
	}
}
