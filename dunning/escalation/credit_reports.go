package escalation

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kobana/kobana-mcp/dunning/bureau"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/identity"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// Credit-bureau reports change a person's credit record, so asking for
// one or its removal is for admins and destructive (confirmed over MCP);
// reading them is for every role.
var (
	creditReportsRead   = mcp.Requirement{Scopes: []string{"dunning.credit_reports"}, Permission: identity.PermRead}
	creditReportsManage = mcp.Requirement{Scopes: []string{"dunning.credit_reports"}, Permission: identity.PermManage}
	protestsRead        = mcp.Requirement{Scopes: []string{"dunning.protests"}, Permission: identity.PermRead}
	protestsManage      = mcp.Requirement{Scopes: []string{"dunning.protests"}, Permission: identity.PermManage}
)

// maxReportAgeYears: no report of a debt whose due date is more than
// five years old (CDC art. 43 §1).
const maxReportAgeYears = 5

type reportIn struct {
	ID     string `json:"id" in:"path" maxLength:"255" jsonschema:"The charge's id or external_id."`
	Bureau string `json:"bureau,omitempty" enum:"serasa,boa_vista,spc,quod" jsonschema:"The credit bureau to report to (default serasa)."`
}

type commandsListIn struct {
	ChargeID string `json:"charge_id,omitempty" in:"query" maxLength:"255" jsonschema:"Only those of this charge (its id or external_id)."`
	Status   string `json:"status,omitempty" in:"query" maxLength:"40" jsonschema:"Only those in this status."`
	restkit.NumberedParams
}

type commandIDIn struct {
	ID string `json:"id" in:"path" maxLength:"255" jsonschema:"Its id."`
}

// checkReportRules refuses a report the law or the product does not
// allow, each with UNPROCESSABLE naming its rule; c is locked in tx.
func (s *Service) checkReportRules(ctx context.Context, tx *store.Tx, c ledger.Charge, st ledger.Settings) error {
	if c.Status != lifecycle.ChargeOverdue {
		return rest.Unprocessable(fmt.Sprintf("rule only_overdue: only an overdue charge can be reported to a credit bureau; this one is %s", c.Status))
	}
	now := s.Clock()
	today := st.Today(now)
	if limit := c.DueDate.AddDays(0); today.After(bankcalendar.NewDate(limit.Year()+maxReportAgeYears, limit.Month(), limit.Day())) {
		return rest.Unprocessable(fmt.Sprintf("rule five_years: a debt due on %s is more than %d years old and can no longer be reported (CDC art. 43 §1)",
			c.DueDate.BR(), maxReportAgeYears))
	}
	sent, err := priorNoticesSent(ctx, tx, c.OrganizationID, c.ID)
	if err != nil {
		return err
	}
	cutoff := today.AddDays(-st.PriorNoticeDays)
	ok := slices.ContainsFunc(sent, func(n notify.Notification) bool { return !st.Today(*n.SentAt).After(cutoff) })
	if !ok {
		last := "none was sent"
		if len(sent) > 0 {
			last = "the last was sent on " + st.Today(*sent[len(sent)-1].SentAt).BR()
		}
		return rest.Unprocessable(fmt.Sprintf("rule prior_notice: the debtor must have been sent a written prior notice (a notification of kind prior_notice) at least %d days before a report, by %s; %s",
			st.PriorNoticeDays, cutoff.BR(), last))
	}
	if old, err := activeCommand(ctx, tx, c.OrganizationID, reportCommand.kind, c.ID); err == nil {
		return rest.Unprocessable(fmt.Sprintf("rule one_active_report: the charge already has an active credit report %s at %s (%s); a second has no effect",
			old.ID, old.Provider, old.Status))
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// ReportCharge asks for a credit-bureau report of the charge in tx,
// under the rules; the step runner's approved steps call it too.
func (s *Service) ReportCharge(ctx context.Context, tx *store.Tx, orgID, ref, provider string) (command, error) {
	if provider == "" {
		provider = "serasa"
	}
	c, err := ledger.LockCharge(ctx, tx, orgID, ref)
	if err != nil {
		return command{}, ledger.NotFoundAs(err, "charge")
	}
	st, err := ledger.LoadSettings(ctx, tx, orgID)
	if err != nil {
		return command{}, err
	}
	if err := s.checkReportRules(ctx, tx, c, st); err != nil {
		return command{}, err
	}
	return s.insertCommand(ctx, tx, reportCommand, c, provider)
}

// ProtestCharge asks the notary to protest the charge in tx: an overdue
// charge, due at most five years ago, not protested already.
func (s *Service) ProtestCharge(ctx context.Context, tx *store.Tx, orgID, ref string) (command, error) {
	c, err := ledger.LockCharge(ctx, tx, orgID, ref)
	if err != nil {
		return command{}, ledger.NotFoundAs(err, "charge")
	}
	st, err := ledger.LoadSettings(ctx, tx, orgID)
	if err != nil {
		return command{}, err
	}
	if c.Status != lifecycle.ChargeOverdue {
		return command{}, rest.Unprocessable(fmt.Sprintf("rule only_overdue: only an overdue charge can be protested; this one is %s", c.Status))
	}
	if today := st.Today(s.Clock()); today.After(bankcalendar.NewDate(c.DueDate.Year()+maxReportAgeYears, c.DueDate.Month(), c.DueDate.Day())) {
		return command{}, rest.Unprocessable(fmt.Sprintf("rule five_years: a debt due on %s is more than %d years old and can no longer be protested", c.DueDate.BR(), maxReportAgeYears))
	}
	if old, err := activeCommand(ctx, tx, orgID, protestCommand.kind, c.ID); err == nil {
		return command{}, rest.Unprocessable(fmt.Sprintf("rule one_active_protest: the charge already has an active protest %s (%s); a second has no effect", old.ID, old.Status))
	} else if !errors.Is(err, store.ErrNotFound) {
		return command{}, err
	}
	return s.insertCommand(ctx, tx, protestCommand, c, bureau.Notary)
}

// withdrawCharge asks the charge's active command of kind out (reason
// "requested": a person asked). None active: the last one, if it is
// already out, answers as it is; otherwise UNPROCESSABLE.
func (s *Service) withdrawCharge(ctx context.Context, tx *store.Tx, k commandKind, orgID, ref string) (command, error) {
	c, err := ledger.LockCharge(ctx, tx, orgID, ref)
	if err != nil {
		return command{}, ledger.NotFoundAs(err, "charge")
	}
	cmd, err := activeCommand(ctx, tx, orgID, k.kind, c.ID)
	if errors.Is(err, store.ErrNotFound) {
		if last, e := lastCommand(ctx, tx, orgID, k.kind, c.ID); e == nil && last.Status == k.exited {
			return last, nil
		}
		return command{}, rest.Unprocessable(fmt.Sprintf("the charge has no active %s to withdraw", k.noun))
	}
	if err != nil {
		return command{}, err
	}
	if err := s.requestExit(ctx, tx, &cmd, "requested", c.Status == lifecycle.ChargePaid); err != nil {
		return command{}, err
	}
	return cmd, nil
}

// describeCommand is the confirmation message of a command on a charge.
func (s *Service) describeCommand(ctx context.Context, ref, what, consequence string) (string, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return "", err
	}
	c, err := ledger.GetCharge(ctx, s.DB, t.OrgID, ref)
	if err != nil {
		return "", ledger.NotFoundAs(err, "charge")
	}
	d, err := ledger.GetDebtor(ctx, s.DB, t.OrgID, c.DebtorID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s the %s charge %s of %s owed by '%s' (%s), due %s? %s", what, c.Status, notify.ChargeName(c), c.OpenAmount, d.Name,
		d.Document, c.DueDate.BR(), consequence), nil
}

// registerCommands declares the reports' and protests' operations.
func registerCommands(api *rest.API, s *Service) {
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_report_credit_bureau", Method: "POST", Path: "/charges/{id}/credit-report", Tags: []string{"credit reports"},
		Title: "Report a charge to a credit bureau",
		Summary: "Asks a credit bureau (serasa, boa_vista, spc, quod) to register the debt (negativação); answers 202 with the report, requested, which becomes confirmed, failed or error when the bureau answers (dunning.credit_report.*). " +
			"Refused (UNPROCESSABLE, naming the rule) unless the charge is overdue (only_overdue), the debtor was sent a prior_notice notification at least the settings' prior_notice_days before (prior_notice), the due date is at most five years old (five_years) and the charge has no active report (one_active_report).",
		Description: "Destructive: it changes a person's credit record. When the charge is paid, canceled or enters an agreement, its removal is requested automatically and must be done within five business days.",
		Requires:    creditReportsManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeChargesReportCreditBureau, s.chargesReportCreditBureau)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_remove_credit_report", Method: "DELETE", Path: "/charges/{id}/credit-report", Tags: []string{"credit reports"},
		Title:       "Remove a charge's credit report",
		Summary:     "Asks the bureau to remove the charge's active report; answers 202 with it, removal_requested, then removed (dunning.credit_report.removed). Removing a report already removed answers it as it is.",
		Description: "Destructive: the debt leaves the debtor's credit record and reporting it again needs every rule again.",
		Requires:    creditReportsManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeChargesRemoveCreditReport, s.chargesRemoveCreditReport)
	registerCommandReads(api, s, reportCommand, "dunning_credit_reports", "/credit-reports", creditReportsRead)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_protest", Method: "POST", Path: "/charges/{id}/protest", Tags: []string{"protests"},
		Title: "Protest a charge at the notary",
		Summary: "Sends the charge to notary protest; answers 202 with the protest, requested, then confirmed or failed (dunning.protest.*). " +
			"Refused (UNPROCESSABLE, naming the rule) unless the charge is overdue (only_overdue), due at most five years ago (five_years) and not protested already (one_active_protest).",
		Description: "Destructive: a protest is a public record against the debtor. When the charge is paid, canceled or enters an agreement, its cancellation is requested automatically (after payment with the settlement letter as consent).",
		Requires:    protestsManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeChargesProtest, s.chargesProtest)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_protest_cancel", Method: "POST", Path: "/charges/{id}/protest/cancel", Tags: []string{"protests"},
		Title:       "Cancel a charge's protest",
		Summary:     "Asks the notary to cancel the charge's active protest; answers 202 with it, cancel_requested, then canceled (dunning.protest.canceled). After payment the settlement letter goes as the declaration of consent (anuência). Cancelling a canceled protest answers it as it is.",
		Description: "Destructive: the protest is withdrawn and protesting again needs every rule again.",
		Requires:    protestsManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeChargesProtestCancel, s.chargesProtestCancel)
	registerCommandReads(api, s, protestCommand, "dunning_protests", "/protests", protestsRead)
}

// describeChargesReportCreditBureau is the confirmation dunning_charges_report_credit_bureau asks for.
func (s *Service) describeChargesReportCreditBureau(ctx context.Context, in *reportIn) (string, error) {
	b := in.Bureau
	if b == "" {
		b = "serasa"
	}
	return s.describeCommand(ctx, in.ID, "Report to "+b, "The debtor's credit record shows the debt until it is removed.")
}

// chargesReportCreditBureau answers dunning_charges_report_credit_bureau.
func (s *Service) chargesReportCreditBureau(ctx context.Context, in *reportIn) (*rest.Response, error) {
	return s.commandWrite(ctx, func(tx *store.Tx, orgID string) (command, error) {
		return s.ReportCharge(ctx, tx, orgID, in.ID, in.Bureau)
	})
}

// describeChargesRemoveCreditReport is the confirmation dunning_charges_remove_credit_report asks for.
func (s *Service) describeChargesRemoveCreditReport(ctx context.Context, in *ledger.ChargeRefIn) (string, error) {
	return s.describeCommand(ctx, in.ID, "Remove the credit report of", "The bureau removes the debt from the debtor's record.")
}

// chargesRemoveCreditReport answers dunning_charges_remove_credit_report.
func (s *Service) chargesRemoveCreditReport(ctx context.Context, in *ledger.ChargeRefIn) (*rest.Response, error) {
	return s.commandWrite(ctx, func(tx *store.Tx, orgID string) (command, error) {
		return s.withdrawCharge(ctx, tx, reportCommand, orgID, in.ID)
	})
}

// describeChargesProtest is the confirmation dunning_charges_protest asks for.
func (s *Service) describeChargesProtest(ctx context.Context, in *ledger.ChargeRefIn) (string, error) {
	return s.describeCommand(ctx, in.ID, "Protest", "A notary registers the debt publicly until the protest is canceled.")
}

// chargesProtest answers dunning_charges_protest.
func (s *Service) chargesProtest(ctx context.Context, in *ledger.ChargeRefIn) (*rest.Response, error) {
	return s.commandWrite(ctx, func(tx *store.Tx, orgID string) (command, error) { return s.ProtestCharge(ctx, tx, orgID, in.ID) })
}

// describeChargesProtestCancel is the confirmation dunning_charges_protest_cancel asks for.
func (s *Service) describeChargesProtestCancel(ctx context.Context, in *ledger.ChargeRefIn) (string, error) {
	return s.describeCommand(ctx, in.ID, "Cancel the protest of", "The notary withdraws the protest.")
}

// chargesProtestCancel answers dunning_charges_protest_cancel.
func (s *Service) chargesProtestCancel(ctx context.Context, in *ledger.ChargeRefIn) (*rest.Response, error) {
	return s.commandWrite(ctx, func(tx *store.Tx, orgID string) (command, error) {
		return s.withdrawCharge(ctx, tx, protestCommand, orgID, in.ID)
	})
}

// commandWrite runs fn in a transaction that consumes the request's
// confirmation and answers 202 with the command.
func (s *Service) commandWrite(ctx context.Context, fn func(tx *store.Tx, orgID string) (command, error)) (*rest.Response, error) {
	t, err := s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	var cmd command
	if err := s.Nonces.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		cmd, err = fn(tx, t.OrgID)
		return err
	}); err != nil {
		return nil, err
	}
	return rest.Accepted(map[string]any{"data": showCommand(cmd)}), nil
}

// registerCommandReads declares the list and get of one kind.
func registerCommandReads(api *rest.API, s *Service, k commandKind, prefix, path string, req mcp.Requirement) {
	r := &commandReads{s: s, k: k}
	rest.Handle(api, rest.Operation{
		ID: prefix + "_list", Method: "GET", Path: path, Tags: []string{k.noun + "s"},
		Title:    "List " + k.noun + "s",
		Summary:  fmt.Sprintf("Lists the organization's %ss, newest first, numbered pages; filters charge_id and status (%s).", k.noun, statesOf(k)),
		Requires: req, Annotations: restkit.ReadOnly(),
	}, r.list)
	rest.Handle(api, rest.Operation{
		ID: prefix + "_get", Method: "GET", Path: path + "/{id}", Tags: []string{k.noun + "s"},
		Title:    "Get a " + k.noun,
		Summary:  fmt.Sprintf("Gets one %s: its status (%s), the provider's protocol, when each step happened and the error of a failed one.", k.noun, statesOf(k)),
		Requires: req, Annotations: restkit.ReadOnly(),
	}, r.get)
}

// commandReads are the list and get handlers of one command kind (credit
// reports, protests): the two kinds share their rows and differ only in
// the kind and its state machine.
type commandReads struct {
	s *Service
	k commandKind
}

// list answers one numbered page of the kind's commands, filtered by
// charge and status.
func (r *commandReads) list(ctx context.Context, in *commandsListIn) (*rest.Response, error) {
	t, err := r.s.Tenant(ctx)
	if err != nil {
		return nil, err
	}
	f := commandListFilter{Kind: r.k.kind}
	if in.ChargeID != "" {
		c, err := ledger.GetCharge(ctx, r.s.DB, t.OrgID, in.ChargeID)
		if err != nil {
			return nil, ledger.NotFoundAs(err, "charge")
		}
		f.ChargeID = c.ID
	}
	if in.Status != "" {
		if _, err := r.k.machine.Parse(in.Status); err != nil {
			return nil, ledger.Invalid("status", err.Error())
		}
		f.Status = in.Status
	}
	page, perPage, offset := in.Window()
	f.Limit, f.Offset = perPage, offset
	rows, total, err := listCommands(ctx, r.s.DB, t.OrgID, f)
	if err != nil {
		return nil, err
	}
	return restkit.NumberedPage(rows, page, perPage, total, showCommand), nil
}

// get answers one command of the kind, 404 for another kind's or another
// organization's id.
func (r *commandReads) get(ctx context.Context, in *commandIDIn) (*rest.Response, error) {
	return restkit.ReadItem(ctx, r.s.Tenancy, r.k.noun, func(t restkit.Tenant) (command, error) {
		return getCommand(ctx, r.s.DB, t.OrgID, r.k.kind, in.ID, "")
	}, showCommand)
}

func statesOf(k commandKind) string {
	out := ""
	for i, st := range k.machine.States() {
		if i > 0 {
			out += ", "
		}
		out += string(st)
	}
	return out
}
