package contact

import (
	"errors"
	"strings"
	"testing"
)

func TestParseEmail(t *testing.T) {
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
