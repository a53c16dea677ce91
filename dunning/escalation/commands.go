package escalation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/files"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Commands sent to an outside party about a charge: a credit-bureau
// report (negativação) and a notary protest. Both are one row of
// dunning_commands written with its job in the transaction that asks for
// it; the job talks to the provider (package bureau) and records its
// answer, and a later answer arrives by signed callback. Leaving —
// removing a report, cancelling a protest — is the same command going
// back out, asked for by a person or, when the charge is paid, canceled
// or renegotiated, by the transaction that changes the charge
// (docs/decisions.md "Dunning: credit bureaus, protest and agreements").

// commandKind is what differs between a report and a protest.
type commandKind struct {
	kind    string
	noun    string
	machine *lifecycle.Machine[lifecycle.CommandStatus]
	// exiting and exited are the states of the way back out.
	exiting, exited lifecycle.CommandStatus
	// events by outcome (requested, confirmed, failed, exited).
	evRequested, evConfirmed, evFailed, evExited string
}

var (
	reportCommand = commandKind{kind: "credit_report", noun: "credit report", machine: lifecycle.CreditReports,
		exiting: lifecycle.ReportRemovalRequested, exited: lifecycle.ReportRemoved,
		evRequested: EventCreditReportRequested, evConfirmed: EventCreditReportConfirmed, evFailed: EventCreditReportFailed, evExited: EventCreditReportRemoved}
	protestCommand = commandKind{kind: "protest", noun: "protest", machine: lifecycle.Protests,
		exiting: lifecycle.ProtestCancelRequested, exited: lifecycle.ProtestCanceled,
		evRequested: EventProtestRequested, evConfirmed: EventProtestConfirmed, evFailed: EventProtestFailed, evExited: EventProtestCanceled}
)

func kindOf(kind string) commandKind {
	if kind == protestCommand.kind {
		return protestCommand
	}
	return reportCommand
}

// The events of reports and protests (webhookEventSlugs lists them all).
const (
	EventCreditReportRequested      = "dunning.credit_report.requested"
	EventCreditReportConfirmed      = "dunning.credit_report.confirmed"
	EventCreditReportFailed         = "dunning.credit_report.failed"
	EventCreditReportRemoved        = "dunning.credit_report.removed"
	EventCreditReportRemovalOverdue = "dunning.credit_report.removal_overdue"
	EventProtestRequested           = "dunning.protest.requested"
	EventProtestConfirmed           = "dunning.protest.confirmed"
	EventProtestFailed              = "dunning.protest.failed"
	EventProtestCanceled            = "dunning.protest.canceled"
)

// removalBusinessDays is how long a report's removal may take: five
// business days after it was asked for (CDC art. 43 §3 as the bureaus'
// rules apply it).
const removalBusinessDays = 5

// commandJSON is a report or a protest as the API shows it. The names of
// the way out differ: a report has removal_*, a protest cancel_*.
type commandJSON struct {
	ID                string                  `json:"id"`
	ChargeID          string                  `json:"charge_id"`
	DebtorID          string                  `json:"debtor_id"`
	Bureau            string                  `json:"bureau,omitempty"`
	Status            lifecycle.CommandStatus `json:"status"`
	Amount            money.Cents             `json:"amount"`
	Protocol          *string                 `json:"protocol"`
	Error             *string                 `json:"error"`
	RequestedAt       time.Time               `json:"requested_at"`
	ConfirmedAt       *time.Time              `json:"confirmed_at"`
	FailedAt          *time.Time              `json:"failed_at"`
	ExitReason        *string                 `json:"removal_reason,omitempty"`
	ExitRequestedAt   *time.Time              `json:"removal_requested_at,omitempty"`
	ExitDueAt         *time.Time              `json:"removal_due_at,omitempty"`
	ExitOverdueAt     *time.Time              `json:"removal_overdue_at,omitempty"`
	ExitedAt          *time.Time              `json:"removed_at,omitempty"`
	CancelReason      *string                 `json:"cancel_reason,omitempty"`
	CancelRequestedAt *time.Time              `json:"cancel_requested_at,omitempty"`
	CanceledAt        *time.Time              `json:"canceled_at,omitempty"`
	ConsentDocumentID *string                 `json:"consent_document_id,omitempty"`
	CreatedBy         string                  `json:"created_by"`
	UpdatedAt         time.Time               `json:"updated_at"`
}

func showCommand(c command) commandJSON {
	j := commandJSON{ID: c.ID, ChargeID: c.ChargeID, DebtorID: c.DebtorID, Status: c.Status, Amount: c.Amount, Protocol: c.Protocol,
		Error: c.Error, RequestedAt: c.RequestedAt, ConfirmedAt: c.ConfirmedAt, FailedAt: c.FailedAt, CreatedBy: c.CreatedBy, UpdatedAt: c.UpdatedAt}
	if c.Kind == protestCommand.kind {
		j.CancelReason, j.CancelRequestedAt, j.CanceledAt, j.ConsentDocumentID = c.ExitReason, c.ExitRequestedAt, c.ExitedAt, c.ConsentDocumentID
		return j
	}
	j.Bureau = c.Provider
	j.ExitReason, j.ExitRequestedAt, j.ExitDueAt, j.ExitOverdueAt, j.ExitedAt = c.ExitReason, c.ExitRequestedAt, c.ExitDueAt, c.ExitOverdueAt, c.ExitedAt
	return j
}

// commandArgs is the job that takes a command to its provider, and back
// out.
type commandArgs struct {
	OrganizationID string `json:"organization_id"`
	CommandID      string `json:"command_id"`
}

// Kind names the job in the queue.
func (commandArgs) Kind() string { return "dunning.command" }

// commandAttempts bounds the tries of one command; the last failure
// leaves it error (a report) or, on its way out, as it is for the watch.
const commandAttempts = 8

// InsertOpts bound the retries.
func (commandArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: commandAttempts}
}

// insertCommand writes c with its job and its requested event, in tx.
func (s *Service) insertCommand(ctx context.Context, tx *store.Tx, k commandKind, c ledger.Charge, provider string) (command, error) {
	now := s.Clock()
	cmd := command{ID: store.NewID(), OrganizationID: c.OrganizationID, Kind: k.kind, ChargeID: c.ID, DebtorID: c.DebtorID, Provider: provider,
		Status: lifecycle.CommandRequested, Amount: c.OpenAmount, RequestedAt: now, CreatedBy: createdByOf(ctx), CreatedAt: now, UpdatedAt: now}
	err := insertCommandRow(ctx, tx, cmd)
	if errors.Is(err, store.ErrConflict) {
		return command{}, rest.Unprocessable(fmt.Sprintf("rule one_active_%s: the charge already has an active %s", k.kind, k.noun))
	}
	if err != nil {
		return command{}, err
	}
	if err := s.enqueueCommand(ctx, tx, cmd); err != nil {
		return command{}, err
	}
	return cmd, s.emitCommandEvent(ctx, tx, k.evRequested, cmd)
}

func (s *Service) enqueueCommand(ctx context.Context, tx *store.Tx, cmd command) error {
	if s.Jobs == nil {
		return nil
	}
	_, err := s.Jobs.EnqueueTx(ctx, tx, commandArgs{OrganizationID: cmd.OrganizationID, CommandID: cmd.ID}, nil)
	return err
}

// requestExit starts cmd's way back out (a report's removal, a protest's
// cancellation) for reason, in tx: the deadline of a report's removal is
// five business days after today; a protest cancelled after payment gets
// the settlement letter as its consent (anuência). Already on its way out
// or out: nothing changes.
func (s *Service) requestExit(ctx context.Context, tx *store.Tx, cmd *command, reason string, paid bool) error {
	k := kindOf(cmd.Kind)
	if cmd.Status == k.exiting || cmd.Status == k.exited {
		return nil
	}
	if err := k.machine.Check(cmd.Status, k.exiting); err != nil {
		return rest.Unprocessable(fmt.Sprintf("%s %s %s cannot be withdrawn: nothing is registered", ledger.ArticleFor(string(cmd.Status)), cmd.Status, k.noun))
	}
	st, err := ledger.LoadSettings(ctx, tx, cmd.OrganizationID)
	if err != nil {
		return err
	}
	now := s.Clock()
	due := businessDaysAfter(st, st.Today(now), removalBusinessDays).AddDays(1).At(0, 0, st.Location).UTC()
	var consent *string
	if k.kind == protestCommand.kind && paid {
		id, err := s.RequestDocumentTx(ctx, tx, cmd.OrganizationID, files.DocumentSettlementLetter, cmd.ChargeID)
		if err != nil {
			return err
		}
		if id != "" {
			consent = &id
		}
	}
	if err := setCommandExit(ctx, tx, cmd.ID, cmd.Status, k.exiting, reason, due, consent, now); err != nil {
		return err
	}
	cmd.Status, cmd.ExitReason, cmd.ExitRequestedAt, cmd.ExitDueAt, cmd.UpdatedAt = k.exiting, &reason, &now, &due, now
	if consent != nil {
		cmd.ConsentDocumentID = consent
	}
	return s.enqueueCommand(ctx, tx, *cmd)
}

// businessDaysAfter is the n-th business day after d in the
// organization's calendar.
func businessDaysAfter(st ledger.Settings, d bankcalendar.Date, n int) bankcalendar.Date {
	cal := st.Calendar()
	for i := 0; i < n; i++ {
		d = cal.NextBusinessDay(d.AddDays(1))
	}
	return d
}

// commandsOnChargeClosed runs in the transaction that makes a charge
// paid, canceled or in_agreement: every active report and protest of it
// is asked out in that same transaction, so the change of the charge and
// the removal it owes the debtor commit together. A write-off or an
// archive keeps them: the debt still exists.
func (s *Service) commandsOnChargeClosed(ctx context.Context, tx *store.Tx, c ledger.Charge, reason lifecycle.StopReason) error {
	if reason != lifecycle.StopPaid && reason != lifecycle.StopCanceled && reason != lifecycle.StopInAgreement {
		return nil
	}
	cmds, err := registeredCommands(ctx, tx, c.OrganizationID, c.ID)
	if err != nil {
		return err
	}
	for i := range cmds {
		if err := s.requestExit(ctx, tx, &cmds[i], string(reason), reason == lifecycle.StopPaid); err != nil {
			return err
		}
	}
	return nil
}

// emitCommandEvent stores an event of cmd, with the command and its
// charge as the API shows them.
func (s *Service) emitCommandEvent(ctx context.Context, tx *store.Tx, slug string, cmd command) error {
	acc := s.Accounts.InTx(tx)
	ws, org, err := restkit.EventHome(ctx, acc, cmd.OrganizationID)
	if err != nil {
		return fmt.Errorf("dunning: emit %s: %w", slug, err)
	}
	c, err := ledger.GetCharge(ctx, tx, cmd.OrganizationID, cmd.ChargeID)
	if err != nil {
		return err
	}
	st, err := ledger.LoadSettings(ctx, tx, cmd.OrganizationID)
	if err != nil {
		return err
	}
	cv, err := s.ChargeView(c, st, bankcalendar.Date{})
	if err != nil {
		return err
	}
	data := map[string]any{cmd.Kind: showCommand(cmd), "charge": cv}
	data["organization"] = org
	_, err = s.Hooks.Emit(ctx, tx, webhooks.Event{OrganizationID: cmd.OrganizationID, WorkspaceID: ws.ID, Slug: slug, SubjectID: cmd.ID, Data: data})
	return err
}
