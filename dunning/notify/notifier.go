package notify

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/dunning/collection"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/msgtemplate"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// Notifier is the part of Dunning that talks to debtors: it composes
// messages, writes them to the notification log with their send job in
// one transaction, sends them through the organization's provider, turns
// provider callbacks into states and runs the scheduler. It shares the
// service (database, clock, webhooks) with every other part.
type Notifier struct {
	*Service
	ch *ledger.ChannelSenders
	// linkBase is the product's public URL, for the links handed out
	// (unsubscribe, Twilio status callbacks).
	linkBase string
	// unsubscribeKey signs unsubscribe links (unsubscribe.go).
	unsubscribeKey []byte
	// RetryBase is the first retry delay of a send that failed for a
	// reason that may pass; tests shorten it.
	RetryBase time.Duration
	// RunnerBatch bounds how many due enrollments one query of the step
	// runner takes.
	RunnerBatch int
	// Periodic adds the scheduler's periodic jobs (the step runner every
	// minute, the sweep every hour) to the queue; tests that drive the
	// clock run them themselves instead.
	Periodic bool
}

// defaultRetryBase is the first retry delay of a temporary send failure;
// each retry waits four times longer, up to an hour.
const defaultRetryBase = 15 * time.Second

// NewNotifier builds the notifier over svc for the deployment's channels.
// secret is the deployment secret (nil in tests of the transport: then a
// key of this process signs the links, valid until it stops).
func NewNotifier(svc *Service, ch *ledger.ChannelSenders, linkBase string, secret []byte) *Notifier {
	key := unsubscribeKey(secret)
	if key == nil {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return &Notifier{Service: svc, ch: ch, linkBase: strings.TrimRight(linkBase, "/"), unsubscribeKey: key,
		RetryBase: defaultRetryBase, RunnerBatch: defaultRunnerBatch, Periodic: true}
}

// WithTx runs fn in a transaction that consumes the MCP confirmation of
// the request, if any (confirm.Nonces.WithTx): a destructive operation
// commits together with the use of its confirmation.
func (n *Notifier) WithTx(ctx context.Context, fn func(tx *store.Tx) error) error {
	if n.Nonces != nil {
		return n.Nonces.WithTx(ctx, fn)
	}
	return n.DB.WithTx(ctx, fn)
}

// Draft is what a caller asks to send: to whom, on which channel, about
// which charge, with which templates. Composing it checks everything a
// person would want refused before a message exists.
type Draft struct {
	Debtor  ledger.Debtor
	Charge  *ledger.Charge
	Channel string
	// To is one of the debtor's addresses on the channel; empty picks the
	// first.
	To string
	// Subject and Body are templates (dunning/msgtemplate); Subject is
	// for e-mail only.
	Subject, Body string
	Kind          string
	CreatedBy     string
	// EnrollmentID and StepID mark a plan step's row.
	EnrollmentID, StepID *string
	ResendOf             *string
}

// Refusal is why a message cannot go: the debtor opted out, has no
// address on the channel, the channel is off, the charge is closed. The
// API answers it as UNPROCESSABLE; the scheduler records it as a skipped
// notification.
type Refusal struct {
	Code, Msg string
}

func (r *Refusal) Error() string { return r.Msg }

// skipDebtorArchived is the skip reason of a message to an archived
// debtor; the others are the preview's (preview.go), so the preview and
// the log give one reason the same name.
const skipDebtorArchived = "debtor_archived"

// skipEnrollmentStopped is the skip reason of a step's message whose
// enrollment stopped between its queueing and its send.
const skipEnrollmentStopped = "enrollment_stopped"

// deliverable checks that the debtor may be contacted on channel about
// charge now: not archived, not opted out, the channel on, the charge
// still collected. It is the check the API, the step runner and the send
// job all make (the last in the transaction that marks a message sending).
func deliverable(st ledger.Settings, d ledger.Debtor, c *ledger.Charge, channel string) *Refusal {
	if d.Status == ledger.DebtorArchived {
		return &Refusal{skipDebtorArchived, "the debtor is archived: archived debtors are not contacted"}
	}
	for _, o := range d.OptOuts {
		if o.Channel == channel {
			return &Refusal{collection.SkipOptedOut, fmt.Sprintf("the debtor opted out of %s on %s (%s): they are never contacted on it",
				channel, o.CreatedAt.Format("2006-01-02"), o.Reason)}
		}
	}
	if !st.ChannelEnabled(channel) {
		return &Refusal{collection.SkipChannelDisabled, fmt.Sprintf("the organization has the %s channel disabled (PATCH /v1/settings enables it)", channel)}
	}
	if c != nil {
		if c.ArchivedAt != nil {
			return &Refusal{collection.SkipChargeNotCollectible, "the charge is archived: nothing is sent about it"}
		}
		if !c.Status.Collectible() {
			return &Refusal{collection.SkipChargeNotCollectible, fmt.Sprintf("the charge is %s: nothing is sent about a charge out of collection", c.Status)}
		}
	}
	return nil
}

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
		// The address a plan step would use (preview.go): the first
		// e-mail, the first mobile for SMS, the first phone for WhatsApp.
		var reason, detail string
		if to, reason, detail = collection.StepAddress(d.Debtor, d.Channel); to == "" {
			return Notification{}, &Refusal{reason, detail}
		}
	} else if addrs := addressesOf(d.Debtor, d.Channel); !containsFold(addrs, to) {
		return Notification{}, rest.Validation("the request is invalid", rest.FieldError{Field: "to",
			Message: "is not one of the debtor's addresses for " + d.Channel + " (" + strings.Join(addrs, ", ") + ")"})
	}
	vals, err := n.templateValues(ctx, q, st, d.Debtor, d.Charge)
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
			if strings.HasPrefix(string(v), "charge.") || v == msgtemplate.PaymentLink {
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
// is filled in with, the amounts as of the organization's today.
func (n *Notifier) templateValues(ctx context.Context, q store.Querier, st ledger.Settings, d ledger.Debtor, c *ledger.Charge) (msgtemplate.Values, error) {
	acc := n.Accounts
	if tx, ok := q.(*store.Tx); ok {
		acc = acc.InTx(tx)
	}
	orgName := ""
	if org, err := acc.GetOrganization(ctx, d.OrganizationID); err == nil {
		orgName = org.Name
	}
	if c == nil {
		return msgtemplate.Values{DebtorName: d.Name, DebtorDocument: brazil.FormatDocument(d.Document), OrganizationName: orgName}, nil
	}
	b, err := ledger.ChargeBreakdown(*c, st, st.Today(n.Clock()))
	if err != nil {
		return msgtemplate.Values{}, err
	}
	// The values a plan step's message gets (preview.go), so the preview
	// shows exactly what is sent.
	return collection.StepMessageValues(orgName, d, *c, b), nil
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
// refuses it with "no value for …").
func defaultBody(channel string, c ledger.Charge) string {
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
		b.WriteString("\n\nSe já pagou, desconsidere esta mensagem.")
		return b.String()
	}
	b.WriteString("{{organization.name}}: {{debtor.name}}, " + strings.TrimSuffix(what, ", ") + " vence(u) em {{charge.due_date}}, valor atualizado {{charge.updated_amount}}.")
	if c.PaymentLink != nil && *c.PaymentLink != "" {
		b.WriteString(" Pague em {{payment_link}}")
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

// AsAPIError is err as the API answers it: a refusal is UNPROCESSABLE.
func AsAPIError(err error) error {
	var r *Refusal
	if errors.As(err, &r) {
		return rest.Unprocessable(r.Msg)
	}
	return err
}

// callbackURL is where Twilio posts the statuses of notification id.
func (n *Notifier) callbackURL(id string) string {
	return n.linkBase + ledger.APIBase + "/callbacks/twilio/" + url.PathEscape(id)
}

// defaultRunnerBatch is how many due enrollments one query of the runner
// takes.
const defaultRunnerBatch = 200
