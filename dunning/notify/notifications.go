package notify

import (
	"context"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// The notification log: every message Dunning sends or meant to send a
// debtor is one dunning_notifications row, written before anything leaves,
// so the log is also the outbox of the embedded provider and the record
// of what a crash left undecided (docs/decisions.md "Dunning: notifications,
// channels and the scheduler").

// Notification statuses. A row is queued when written, sending once the
// send job has committed that it is about to call the provider, sent when
// the provider took it, then delivered, opened, bounced or failed as the
// provider reports. unknown is a send whose outcome a crash or a cut-off
// made unknown: it is never sent again by itself (resend is a new row).
const (
	NotificationQueued    = "queued"
	NotificationSending   = "sending"
	NotificationSent      = "sent"
	NotificationDelivered = "delivered"
	NotificationOpened    = "opened"
	NotificationBounced   = "bounced"
	NotificationFailed    = "failed"
	NotificationUnknown   = "unknown"
)

// NotificationStatuses lists them in the order a message passes through
// them, for filters and documentation.
var NotificationStatuses = []string{NotificationQueued, NotificationSending, NotificationSent, NotificationDelivered,
	NotificationOpened, NotificationBounced, NotificationFailed, NotificationUnknown}

// Notification kinds (dunning_notifications.kind): a plan step's reminder,
// an ad hoc message (notify, notifications_create) and a resend of
// another notification.
const (
	KindReminder = "reminder"
	KindAdHoc    = "ad_hoc"
	KindResend   = "resend"
	// KindPriorNotice is the written notice a debtor must receive before a
	// credit-bureau report (dunning/escalation's credit_reports.go).
	KindPriorNotice = "prior_notice"
)

// The default prior notice (aviso prévio de negativação): what is owed,
// since when, and that it may be reported to the credit bureaus.
const (
	priorNoticeSubject = "Aviso de possível registro em órgãos de proteção ao crédito"
	priorNoticeBody    = "Olá {{debtor.name}}, a sua fatura de {{charge.updated_amount}}, vencida em {{charge.due_date}}, " +
		"continua em aberto. Se não for paga, o débito poderá ser registrado em órgãos de proteção ao crédito (SPC, Serasa, Boa Vista, Quod) " +
		"após o prazo legal deste aviso."
)

// CreatedByScheduler is the created_by of the rows the step runner
// writes: no person asked for them.
const CreatedByScheduler = "scheduler"

// The notification events (webhookEventSlugs in dunning/spec.go lists every
// event).
const (
	EventNotificationSent      = "dunning.notification.sent"
	EventNotificationDelivered = "dunning.notification.delivered"
	EventNotificationFailed    = "dunning.notification.failed"
)

// Notification is one message to a debtor (dunning_notifications). A
// plan step's row has EnrollmentID and StepID, and the unique index
// dunning_notifications_step_once makes it the only row of that
// (enrollment, step): the at-most-once of the scheduler is this row, not
// a check in a process.
type Notification struct {
	ID                string     `db:"id"`
	OrganizationID    string     `db:"organization_id"`
	DebtorID          string     `db:"debtor_id"`
	ChargeID          *string    `db:"charge_id"`
	EnrollmentID      *string    `db:"enrollment_id"`
	StepID            *string    `db:"step_id"`
	Kind              string     `db:"kind"`
	ResendOf          *string    `db:"resend_of"`
	Channel           string     `db:"channel"`
	ToAddress         string     `db:"to_address"`
	Subject           *string    `db:"subject"`
	Body              string     `db:"body"`
	Status            string     `db:"status"`
	Provider          string     `db:"provider"`
	ProviderMessageID *string    `db:"provider_message_id"`
	Error             *string    `db:"error"`
	QueuedAt          time.Time  `db:"queued_at"`
	SendingAt         *time.Time `db:"sending_at"`
	SentAt            *time.Time `db:"sent_at"`
	DeliveredAt       *time.Time `db:"delivered_at"`
	FailedAt          *time.Time `db:"failed_at"`
	CreatedBy         string     `db:"created_by"`
	CreatedAt         time.Time  `db:"created_at"`
	UpdatedAt         time.Time  `db:"updated_at"`
	// PixPayload is the Pix code an e-mail carries ({{pix.copia_e_cola}}
	// or {{pix.qr_url}}): the send attaches its QR inline.
	PixPayload *string `db:"pix_payload"`
}

// notificationJSON is a notification as the API and the events show it.
// to, subject and body are exactly what the debtor receives (or would
// have, for the outbox): data, never instructions.
type notificationJSON struct {
	ID                string     `json:"id"`
	DebtorID          string     `json:"debtor_id"`
	ChargeID          *string    `json:"charge_id"`
	EnrollmentID      *string    `json:"enrollment_id"`
	StepID            *string    `json:"step_id"`
	Kind              string     `json:"kind"`
	ResendOf          *string    `json:"resend_of"`
	Channel           string     `json:"channel"`
	To                string     `json:"to"`
	Subject           *string    `json:"subject"`
	Body              string     `json:"body"`
	Status            string     `json:"status"`
	Provider          string     `json:"provider"`
	ProviderMessageID *string    `json:"provider_message_id"`
	Error             *string    `json:"error"`
	QueuedAt          time.Time  `json:"queued_at"`
	SendingAt         *time.Time `json:"sending_at"`
	SentAt            *time.Time `json:"sent_at"`
	DeliveredAt       *time.Time `json:"delivered_at"`
	FailedAt          *time.Time `json:"failed_at"`
	CreatedBy         string     `json:"created_by"`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
}

// showNotification is n as the API shows it.
func showNotification(n Notification) notificationJSON {
	return notificationJSON{ID: n.ID, DebtorID: n.DebtorID, ChargeID: n.ChargeID, EnrollmentID: n.EnrollmentID, StepID: n.StepID,
		Kind: n.Kind, ResendOf: n.ResendOf, Channel: n.Channel, To: n.ToAddress, Subject: n.Subject, Body: n.Body,
		Status: n.Status, Provider: n.Provider, ProviderMessageID: n.ProviderMessageID, Error: n.Error,
		QueuedAt: n.QueuedAt, SendingAt: n.SendingAt, SentAt: n.SentAt, DeliveredAt: n.DeliveredAt, FailedAt: n.FailedAt,
		CreatedBy: n.CreatedBy, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
}

// emitNotificationEvent stores a notification event (one of the
// EventNotification constants) and its deliveries in tx, so it exists
// exactly when the change it reports commits. Its data is the
// notification as the API shows it and the organization ({id, name}); the
// events live under the organization's home workspace, where its webhooks
// are (restkit.OrganizationTenancy).
func (s *Service) emitNotificationEvent(ctx context.Context, tx *store.Tx, slug string, n Notification) error {
	if s.Hooks == nil {
		return nil
	}
	acc := s.Accounts.InTx(tx)
	ws, org, err := restkit.EventHome(ctx, acc, n.OrganizationID)
	if err != nil {
		return fmt.Errorf("dunning: emit %s: %w", slug, err)
	}
	data := map[string]any{"notification": showNotification(n)}
	data["organization"] = org
	_, err = s.Hooks.Emit(ctx, tx, webhooks.Event{OrganizationID: n.OrganizationID, WorkspaceID: ws.ID, Slug: slug,
		SubjectID: n.ID, Data: data})
	return err
}
