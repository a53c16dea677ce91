package inbox

import (
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/inbox/mailparse"
)

// A received message as the Inbox reads it: the intake (intake.go,
// intake_http.go, intake_smtp.go) to store and screen it, processing
// (processing.go) to hand it to the agent.

// addresses are the addr-specs of a header list.
func addresses(list []mailparse.Address) []string {
	out := make([]string, 0, len(list))
	for _, a := range list {
		out = append(out, a.Address)
	}
	return out
}

// parseMessage is mailparse.Parse with a last line of defence: a panic in
// a parser dependency makes the message unparseable, never takes the
// intake down.
func parseMessage(raw []byte) (m *mailparse.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("mailparse: panic: %v", p)
		}
	}()
	return mailparse.Parse(raw)
}

// normalizeAddress is an envelope or header address as the Inbox compares
// it: angle brackets and blanks removed, lower-cased, valid UTF-8; "" when
// it is not an address (the null sender "<>", say).
func normalizeAddress(a string) string {
	a = strings.TrimSpace(a)
	a = strings.TrimSuffix(strings.TrimPrefix(a, "<"), ">")
	a = strings.ToLower(strings.TrimSpace(strings.ToValidUTF8(a, "")))
	a = strings.ReplaceAll(a, "\x00", "")
	if !strings.Contains(a, "@") || len(a) > 320 {
		return ""
	}
	return a
}
