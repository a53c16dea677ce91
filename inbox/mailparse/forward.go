package mailparse

import (
	"regexp"
	"strings"
)

// forwardMarker matches the line mail clients put above an inline forward,
// in the languages Kobana's customers write in: Gmail's "----------
// Forwarded message ---------" (and "Mensagem encaminhada", "Mensaje
// reenviado"), Thunderbird's "-------- Forwarded Message --------",
// Outlook's "-----Mensagem encaminhada-----", Apple Mail's "Begin
// forwarded message:" (and "Início da mensagem encaminhada:", "Inicio del
// mensaje reenviado:").
var forwardMarker = regexp.MustCompile(`(?i)^(?:-{2,}\s*(?:forwarded message|mensagem encaminhada|mensaje reenviado|message transféré)\s*-{2,}|(?:begin forwarded message|in[ií]cio da mensagem encaminhada|inicio del mensaje reenviado)\s*:)$`)

// forwardFrom matches the sender line of a forward block ("From:", "De:"),
// possibly bold (Gmail's plain text renders *From:*).
var forwardFrom = regexp.MustCompile(`(?i)^\*?(?:from|de|von)\s*:\*?\s*(.+)$`)

// forwardLookahead is how many non-blank lines after the marker may come
// before the From: line (Thunderbird puts Subject and Date first).
const forwardLookahead = 8

// finish derives what needs the whole message: whether it forwards
// another one, and whose.
func (m *Message) finish() {
	for _, e := range m.Embedded {
		m.Forwarded = true
		if m.ForwardedFor == "" && e.From != nil {
			m.ForwardedFor = e.From.Address
		}
	}
	text := m.Text
	if strings.TrimSpace(text) == "" {
		text = htmlToText(m.HTML)
	}
	if found, from := inlineForward(text); found {
		m.Forwarded = true
		if m.ForwardedFor == "" {
			m.ForwardedFor = from
		}
	}
}

// inlineForward finds an inline forward block: a marker line followed,
// within a few lines, by a From: line naming an address. It returns the
// address of the first such block.
func inlineForward(text string) (bool, string) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !forwardMarker.MatchString(unquote(l)) {
			continue
		}
		seen := 0
		for _, next := range lines[i+1:] {
			next = unquote(next)
			if next == "" {
				continue
			}
			if seen++; seen > forwardLookahead {
				break
			}
			if mm := forwardFrom.FindStringSubmatch(next); mm != nil {
				if list := addressList(mm[1]); len(list) > 0 {
					return true, list[0].Address
				}
			}
		}
	}
	return false, ""
}

// unquote trims a line and any "> " quoting in front of it.
func unquote(l string) string {
	l = strings.TrimSpace(l)
	for strings.HasPrefix(l, ">") {
		l = strings.TrimSpace(l[1:])
	}
	return l
}
