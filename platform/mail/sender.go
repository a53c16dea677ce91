package mail

import (
	"context"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/platform/messaging"
)

// Sender returns c as a messaging.Sender for the Email channel, so a
// product can hold it beside the SMS and WhatsApp senders. The message's
// ID becomes the Message-ID, completed with From's domain when it has no
// "@" (an outbox row's UUID "0190f3a2-…" is sent as
// "<0190f3a2-…@kobana.com.br>"); its ListUnsubscribe is the RFC 8058
// one-click URL.
func (c *Client) Sender() messaging.Sender { return sender{c} }

type sender struct{ c *Client }

func (s sender) Send(ctx context.Context, m messaging.Message) (messaging.Receipt, error) {
	if m.Channel != messaging.Email {
		return messaging.Receipt{}, &messaging.Error{Channel: m.Channel, Provider: Provider, Permanent: true,
			Message: fmt.Sprintf("channel %q is not sent by e-mail", m.Channel)}
	}
	id := m.ID
	if id != "" && !strings.Contains(id, "@") {
		id += "@" + s.c.domain
	}
	r, err := s.c.Send(ctx, Message{
		To: m.To, Subject: m.Subject, Text: m.Text, HTML: m.HTML, Inline: m.Inline,
		MessageID: id, ListUnsubscribe: m.ListUnsubscribe,
	})
	if err != nil {
		return messaging.Receipt{}, err
	}
	return messaging.Receipt{Channel: messaging.Email, ID: r.MessageID, Status: messaging.StatusSent, Detail: r.Response}, nil
}
