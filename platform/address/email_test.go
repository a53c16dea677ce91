package address

import (
	"errors"
	"strings"
	"testing"
)

func TestParseEmail(t *testing.T) {
	t.Parallel()
	valid := []struct{ in, want string }{
		{"maria@example.com", "maria@example.com"},
		{"Maria.Silva+cobranca@Exemplo.COM.br", "Maria.Silva+cobranca@exemplo.com.br"},
		{"  maria@example.com\n", "maria@example.com"},
		{"joao@café.com.br", "joao@xn--caf-dma.com.br"},
		{"a@b.co", "a@b.co"},
		{"o'neil@example.com", "o'neil@example.com"},
		{"x@123.com", "x@123.com"},
		{strings.Repeat("a", 64) + "@example.com", strings.Repeat("a", 64) + "@example.com"},
	}
	for _, tt := range valid {
		got, err := ParseEmail(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseEmail(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	invalid := []string{
		"",
		"maria",
		"maria@",
		"@example.com",
		"maria@@example.com",
		"Maria <maria@example.com>",
		"<maria@example.com>",
		"maria@example.com (Maria)",
		"(Maria) maria@example.com",
		`"maria silva"@example.com`,
		`"maria"@example.com`,
		"maria@example.com, joao@example.com",
		"maria@localhost",
		"maria@[127.0.0.1]",
		"maria@example..com",
		"maria@-example.com",
		"maria@exa_mple.com",
		"maria@example.com.",
		"maria.@example.com",
		".maria@example.com",
		"ma..ria@example.com",
		"joão@example.com",
		"maria@exam ple.com",
		"maria@example.com\nBcc: x@evil.com",
		strings.Repeat("a", 65) + "@example.com",
		"a@" + strings.Repeat("b", 250) + ".com",
		"maria@" + strings.Repeat("a", 64) + ".com", // a DNS label over 63 octets
	}
	for _, in := range invalid {
		got, err := ParseEmail(in)
		if !errors.Is(err, ErrEmailInvalid) {
			t.Errorf("ParseEmail(%q) = %q, %v; want ErrEmailInvalid", in, got, err)
		}
	}
}

func TestEmailMessages(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Maria <maria@example.com>", `not a valid e-mail address: give the address alone, without a name, brackets, quotes or comments (got "Maria <maria@example.com>")`},
		{"maria@localhost", `not a valid e-mail address: "localhost" is not a domain name`},
		{"joão@example.com", `not a valid e-mail address: the part before @ must be ASCII (got "joão@example.com")`},
		{"maria", `not a valid e-mail address (got "maria")`},
	}
	for _, tt := range tests {
		_, err := ParseEmail(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseEmail(%q) = %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

// TestParseEmailHostile is the table of addresses that try to become
// something else on the way to SMTP: the probe (a Kadu
// destination carrying a Bcc header), bare line feeds, NUL, two
// addresses, a display name with an injected header, bidi controls and
// over-long addresses. Each must be refused, and with the reason.
func TestParseEmailHostile(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, why string }{
		{"x@example.com\r\nBcc:evil@evil.example", "control character U+000D"},
		{"x@example.com\nBcc:evil@evil.example", "control character U+000A"},
		{"x@example.com\rBcc:evil@evil.example", "control character U+000D"},
		{"x@exam\x00ple.com", "control character U+0000"},
		{"x\x00@example.com", "control character U+0000"},
		{"x@example.com, evil@evil.example", "not several"},
		{"x@example.com;evil@evil.example", "not several"},
		{"\"Maria\r\nBcc: evil@evil.example\" <x@example.com>", "control character U+000D"},
		{"Maria <x@example.com>", "without a name"},
		{"x\u202e@example.com", "control character U+202E"},
		{"x@exa\u200emple.com", "control character U+200E"},
		{"x@example.com\t(y)", "control character U+0009"},
		{strings.Repeat("a", 65) + "@example.com", "longer than 64"},
		{strings.Repeat("a", 60) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + ".com", "longer than 254"},
	}
	for _, tt := range tests {
		got, err := ParseEmail(tt.in)
		if !errors.Is(err, ErrEmailInvalid) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("ParseEmail(%q) = %q, %v; want ErrEmailInvalid saying %q", tt.in, got, err, tt.why)
		}
	}
	// An internationalised domain is a valid address, stored in ASCII.
	if got, err := ParseEmail("cobranca@pão.com.br"); err != nil || got != "cobranca@xn--po-sia.com.br" {
		t.Errorf("IDN: got %q, %v", got, err)
	}
}
