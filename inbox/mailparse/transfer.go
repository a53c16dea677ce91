package mailparse

import (
	"encoding/base64"
	"io"
	"strings"
)

// decodeTransfer reads a part's body and removes its
// Content-Transfer-Encoding. Decoding is lenient, as mail in the wild
// needs: base64 ignores characters outside its alphabet and missing
// padding, quoted-printable keeps a stray "=" as it is. A body cut short
// (an unterminated multipart) keeps what arrived. The second result is a
// warning ("" when none).
func (p *parser) decodeTransfer(encoding string, body io.Reader) ([]byte, string) {
	raw, err := io.ReadAll(body)
	warn := ""
	if err != nil {
		warn = "part cut short: " + err.Error()
	}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		return decodeBase64(raw), warn
	case "quoted-printable":
		return decodeQP(raw), warn
	case "", "7bit", "8bit", "binary":
		return raw, warn
	default:
		if warn == "" {
			warn = "unknown transfer encoding " + cleanText(encoding) + ": kept as it is"
		}
		return raw, warn
	}
}

// decodeBase64 decodes base64, skipping whitespace and any byte outside
// the alphabet, and tolerating missing padding or a truncated last group.
// Padding in the middle ends a block: some mailers concatenate separately
// encoded blocks, and each is decoded on its own.
func decodeBase64(raw []byte) []byte {
	out := make([]byte, 0, len(raw)*3/4)
	chunk := make([]byte, 0, len(raw))
	for _, c := range raw {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			chunk = append(chunk, c)
		case c == '=':
			if len(chunk)%4 != 0 {
				out = appendBase64(out, chunk)
				chunk = chunk[:0]
			}
		}
	}
	return appendBase64(out, chunk)
}

// appendBase64 appends the decoding of an unpadded base64 block, dropping
// a dangling last character.
func appendBase64(out, chunk []byte) []byte {
	if len(chunk)%4 == 1 {
		chunk = chunk[:len(chunk)-1]
	}
	buf := make([]byte, base64.RawStdEncoding.DecodedLen(len(chunk)))
	n, err := base64.RawStdEncoding.Decode(buf, chunk)
	if err != nil {
		// Non-canonical trailing bits: keep the whole groups.
		whole := chunk[:len(chunk)/4*4]
		buf = make([]byte, base64.RawStdEncoding.DecodedLen(len(whole)))
		n, _ = base64.RawStdEncoding.Decode(buf, whole)
	}
	return append(out, buf[:n]...)
}

// decodeQP decodes quoted-printable (RFC 2045 §6.7): "=XX" is a byte, "="
// at the end of a line (trailing blanks allowed) is a soft line break,
// and any other "=" stays as it is.
func decodeQP(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '=' {
			out = append(out, c)
			continue
		}
		if i+2 < len(raw) && isHex(raw[i+1]) && isHex(raw[i+2]) {
			out = append(out, unhex(raw[i+1])<<4|unhex(raw[i+2]))
			i += 2
			continue
		}
		j := i + 1
		for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t') {
			j++
		}
		switch {
		case j == len(raw):
			i = j - 1
		case raw[j] == '\n':
			i = j
		case raw[j] == '\r' && j+1 < len(raw) && raw[j+1] == '\n':
			i = j + 1
		case raw[j] == '\r':
			i = j
		default:
			out = append(out, c)
		}
	}
	return out
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}
