package notify

import (
	"context"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/msgtemplate"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Composing and queueing a message: a Draft becomes a notification row
// (the address, the provider, the rendered templates, the unsubscribe
// line), written with its send job in one transaction. Above the send job
// (send.go) and the unsubscribe links (unsubscribe.go), which it names.

// addressesOf are the debtor's addresses on channel.
func addressesOf(d ledger.Debtor, channel string) []string {
	if channel == ledger.ChannelEmail {
		return d.Emails
	}
	return d.Phones
}

// Compose turns a draft into the notification row to queue: it picks the
// address and the provider, renders the templates with the debtor's and
// charge's values as of now, checks the message fits its channel and, for
// e-mail, adds the unsubscribe line. A *refusal is a business rule; a
// *rest.Error a bad template or address.
func (n *Notifier) Compose(ctx context.Context, q store.Querier, st ledger.Settings, d Draft) (Notification, error) {
	if r := deliverable(st, d.Debtor, d.Charge, d.Channel); r != nil {
		return Notification{}, r
	}
	to := d.To
	if to == "" {
		// The address a plan step would use (dunning/collection's
		// preview.go): the first
		// e-mail, the first mobile for SMS, the first phone for WhatsApp.
		var reason, detail string
		if to, reason, detail = collection.StepAddress(d.Debtor, d.Channel); to == "" {
			return Notification{}, &Refusal{reason, detail}
		}
	} else if addrs := addressesOf(d.Debtor, d.Channel); !containsFold(addrs, to) {
		return Notification{}, rest.Validation("the request is invalid", rest.FieldError{Field: "to",
			Message: "is not one of the debtor's addresses for " + d.Channel + " (" + strings.Join(addrs, ", ") + ")"})
	}
	vals, pix, err := n.templateValues(ctx, q, st, d.Debtor, d.Charge)
	if err != nil {
		return Notification{}, err
	}
	body, err := renderField("body", d.Body, vals, d.Charge != nil)
	if err != nil {
		return Notification{}, err
	}
	var subject *string
	if d.Channel == ledger.ChannelEmail {
		tpl := d.Subject
		if tpl == "" {
			tpl = defaultSubject(d.Charge)
		}
		s, err := renderField("subject", tpl, vals, d.Charge != nil)
		if err != nil {
			return Notification{}, err
		}
		s = strings.Join(strings.Fields(s), " ") // one line
		subject = &s
		body += "\n\n--\n" + unsubscribeLine(vals.OrganizationName, n.unsubscribeURL(d.Debtor.OrganizationID, d.Debtor.ID, ledger.ChannelEmail))
	} else if d.Subject != "" {
		return Notification{}, rest.Validation("the request is invalid", rest.FieldError{Field: "subject", Message: "is for e-mail only"})
	}
	if l := msgtemplate.Measure(msgtemplate.Channel(d.Channel), body); !l.Fits {
		return Notification{}, rest.Validation("the request is invalid", rest.FieldError{Field: "body",
			Message: fmt.Sprintf("renders to %d characters, over the %s limit of %s", l.Characters, d.Channel, l.Limit)})
	}
	provider, _ := n.ch.Resolve(st, d.Channel)
	now := n.Clock()
	row := Notification{ID: store.NewID(), OrganizationID: d.Debtor.OrganizationID, DebtorID: d.Debtor.ID,
		EnrollmentID: d.EnrollmentID, StepID: d.StepID, Kind: d.Kind, ResendOf: d.ResendOf, Channel: d.Channel,
		ToAddress: to, Subject: subject, Body: body, Status: NotificationQueued, Provider: provider,
		QueuedAt: now, CreatedBy: d.CreatedBy, CreatedAt: now, UpdatedAt: now}
	if d.Charge != nil {
		row.ChargeID = &d.Charge.ID
	}
	if pix != nil && d.Channel == ledger.ChannelEmail && (collection.UsesPix(d.Body) || collection.UsesPix(d.Subject)) {
		row.PixPayload = &pix.Payload
	}
	return row, nil
}

// renderField renders one template field; withCharge says whether the
// charge's variables have values. Errors name the field.
func renderField(field, text string, vals msgtemplate.Values, withCharge bool) (string, error) {
	t, err := msgtemplate.Parse(text)
	if err != nil {
		return "", rest.Validation("the request is invalid", rest.FieldError{Field: field, Message: err.Error()})
	}
	if !withCharge {
		for _, v := range t.Variables() {
			if strings.HasPrefix(string(v), "charge.") || strings.HasPrefix(string(v), "pix.") || v == msgtemplate.PaymentLink {
				return "", rest.Validation("the request is invalid", rest.FieldError{Field: field,
					Message: "uses {{" + string(v) + "}}, which needs a charge (charge_id)"})
			}
		}
	}
	out, err := t.Render(vals)
	if err != nil {
		return "", rest.Validation("the request is invalid", rest.FieldError{Field: field, Message: err.Error() + " for this charge"})
	}
	if strings.TrimSpace(out) == "" {
		return "", rest.Validation("the request is invalid", rest.FieldError{Field: field, Message: "renders to an empty message"})
	}
	return out, nil
}

// templateValues are what a message about charge (nil: none) to debtor
// is filled in with, the amounts as of the organization's today, and the
// charge's Pix code of today (nil without a charge or a Pix key).
func (n *Notifier) templateValues(ctx context.Context, q store.Querier, st ledger.Settings, d ledger.Debtor, c *ledger.Charge) (msgtemplate.Values, *ledger.PixOfDay, error) {
	acc := n.Accounts
	if tx, ok := q.(*store.Tx); ok {
		acc = acc.InTx(tx)
	}
	orgName := ""
	if org, err := acc.GetOrganization(ctx, d.OrganizationID); err == nil {
		orgName = org.Name
	}
	portal, err := n.PortalURL(ctx, q, st, d)
	if err != nil {
		return msgtemplate.Values{}, nil, err
	}
	if c == nil {
		return msgtemplate.Values{DebtorName: d.Name, DebtorDocument: brazil.FormatDocument(d.Document), OrganizationName: orgName, DebtorPortalURL: portal}, nil, nil
	}
	today := st.Today(n.Clock())
	b, err := ledger.ChargeBreakdown(*c, st, today)
	if err != nil {
		return msgtemplate.Values{}, nil, err
	}
	var pix *ledger.PixOfDay
	if r, ok, err := ledger.LoadPixReceiver(ctx, q, d.OrganizationID); err != nil {
		return msgtemplate.Values{}, nil, err
	} else if ok {
		if pix, err = n.ChargePix(&r, *c, b, today); err != nil {
			return msgtemplate.Values{}, nil, err
		}
	}
	// The values a plan step's message gets (dunning/collection's
	// preview.go), so the preview shows exactly what is sent.
	vals := collection.StepMessageValues(orgName, d, *c, b, pix, today)
	vals.DebtorPortalURL = portal
	return vals, pix, nil
}

// defaultSubject is an e-mail's subject when the caller gives none.
func defaultSubject(c *ledger.Charge) string {
	if c == nil {
		return "Mensagem de {{organization.name}}"
	}
	if strings.TrimSpace(c.Description) == "" {
		// A charge may have no description (it is optional when created):
		// the default names only what every charge has.
		return "Lembrete de pagamento de {{organization.name}}"
	}
	return "Lembrete de pagamento: {{charge.description}}"
}

// defaultBody is the message charges_notify sends when the caller gives
// none: the charge's amount and due date, with the payment link and the
// digitable line when the charge has them, and its description when it
// has one (a template must not name a value the charge lacks: Render
// refuses it with "no value for …"); with the creditor's Pix key
// (withPix), e-mail and WhatsApp carry the Pix code of the day too (the
// e-mail its QR inline) — SMS keeps to the link, as a BR Code would take
// it to several segments.
func defaultBody(channel string, c ledger.Charge, withPix bool) string {
	what := "uma cobrança, "
	if strings.TrimSpace(c.Description) != "" {
		what = "{{charge.description}}, "
	}
	var b strings.Builder
	if channel == ledger.ChannelEmail {
		b.WriteString("Olá, {{debtor.name}}.\n\nConsta em aberto com {{organization.name}}: " + what + "vencimento em {{charge.due_date}}, valor atualizado de {{charge.updated_amount}}.")
		if c.PaymentLink != nil && *c.PaymentLink != "" {
			b.WriteString("\n\nPague em: {{payment_link}}")
		}
		if c.Barcode != nil && *c.Barcode != "" {
			b.WriteString("\n\nLinha digitável: {{charge.barcode}}")
		}
		if withPix {
			b.WriteString("\n\nPague com Pix, pelo QR Code ou pelo código copia e cola (válido hoje, no valor atualizado):\n{{pix.copia_e_cola}}")
		}
		b.WriteString("\n\nSe já pagou, desconsidere esta mensagem.")
		return b.String()
	}
	b.WriteString("{{organization.name}}: {{debtor.name}}, " + strings.TrimSuffix(what, ", ") + " vence(u) em {{charge.due_date}}, valor atualizado {{charge.updated_amount}}.")
	if c.PaymentLink != nil && *c.PaymentLink != "" {
		b.WriteString(" Pague em {{payment_link}}")
	}
	if withPix && channel == ledger.ChannelWhatsApp {
		b.WriteString("\n\nPix copia e cola (válido hoje):\n{{pix.copia_e_cola}}")
	}
	return b.String()
}

// unsubscribeLine is the e-mail's last line: how to stop receiving them
// (the same link List-Unsubscribe carries).
func unsubscribeLine(org, link string) string {
	if org == "" {
		return "Para não receber mais e-mails de cobrança: " + link
	}
	return "Para não receber mais e-mails de cobrança de " + org + ": " + link
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// Queue writes the notification and enqueues its send in tx: the job
// exists exactly when the row does. A plan step's row that another worker
// already wrote is not written again, and false says so.
func (n *Notifier) Queue(ctx context.Context, tx *store.Tx, row Notification) (bool, error) {
	ok, err := InsertNotification(ctx, tx, row)
	if err != nil || !ok {
		return ok, err
	}
	if row.Status == NotificationQueued && n.Jobs != nil {
		if _, err := n.Jobs.EnqueueTx(ctx, tx, SendArgs{OrganizationID: row.OrganizationID, NotificationID: row.ID}, nil); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Skipped is the row of a step that was not sent: it records why
// (failed, with the reason as its error) and takes the step's place, so
// the step is never tried again.
func (n *Notifier) Skipped(d Draft, reason *Refusal, to string) Notification {
	now := n.Clock()
	msg := "skipped: " + reason.Code + ": " + reason.Msg
	row := Notification{ID: store.NewID(), OrganizationID: d.Debtor.OrganizationID, DebtorID: d.Debtor.ID,
		EnrollmentID: d.EnrollmentID, StepID: d.StepID, Kind: d.Kind, Channel: d.Channel, ToAddress: to,
		Body: "", Status: NotificationFailed, Provider: ledger.ProviderOutbox, Error: &msg, QueuedAt: now, FailedAt: &now,
		CreatedBy: d.CreatedBy, CreatedAt: now, UpdatedAt: now}
	if d.Charge != nil {
		row.ChargeID = &d.Charge.ID
	}
	return row
}
