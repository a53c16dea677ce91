package escalation

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// The agreement monitor: hourly (and when a process becomes the leader)
// it reads every accepted or active agreement on the service's clock and
//
//   - settles it when every installment's charge is paid: its charges
//     become paid (dunning.charge.paid; their reports were asked out when
//     they entered the agreement), dunning.agreement.settled;
//   - breaks it when an installment is still unpaid more than the
//     settings' agreement_grace_days after its due date: its unpaid
//     installments are canceled and its charges go back to overdue owing
//     what the paid installments did not cover, dunning.agreement.broken;
//   - otherwise marks an accepted agreement active once an installment is
//     paid.
//
// Each agreement is decided in its own transaction, the agreement row
// locked, so two workers never decide one twice.

type agreementMonitorArgs struct{}

// Kind names the job in the queue.
func (agreementMonitorArgs) Kind() string { return "dunning.agreement_monitor" }

type agreementMonitorWorker struct {
	river.WorkerDefaults[agreementMonitorArgs]
	s *Service
}

// Work runs the monitor once.
func (w *agreementMonitorWorker) Work(ctx context.Context, _ *river.Job[agreementMonitorArgs]) error {
	_, err := w.s.MonitorAgreements(ctx)
	return err
}

// registerAgreementJobs registers the monitor, hourly at minute 13 when
// periodic.
func (s *Service) registerAgreementJobs(q *jobs.Queue, periodic bool) {
	jobs.AddWorker(q, &agreementMonitorWorker{s: s})
	if periodic {
		q.AddPeriodic(ledger.Hourly{Min: 13}, func() (river.JobArgs, *river.InsertOpts) { return agreementMonitorArgs{}, nil }, true)
	}
}

// MonitorAgreements decides every open agreement and answers how many
// changed.
func (s *Service) MonitorAgreements(ctx context.Context) (int, error) {
	open, err := openAgreements(ctx, s.DB)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, a := range open {
		err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
			did, err := s.decideAgreement(ctx, tx, a.OrganizationID, a.ID)
			if did {
				changed++
			}
			return err
		})
		if err != nil {
			return changed, fmt.Errorf("dunning: agreement monitor, %s: %w", a.ID, err)
		}
	}
	return changed, nil
}

func (s *Service) decideAgreement(ctx context.Context, tx *store.Tx, orgID, id string) (bool, error) {
	a, err := ledger.GetAgreement(ctx, tx, orgID, id, ledger.ForUpdate(tx))
	if err != nil {
		return false, err
	}
	if a.Status != lifecycle.AgreementAccepted && a.Status != lifecycle.AgreementActive {
		return false, nil
	}
	st, err := ledger.LoadSettings(ctx, tx, orgID)
	if err != nil {
		return false, err
	}
	today := st.Today(s.Clock())
	_, inst, err := ledger.AgreementParts(ctx, tx, a)
	if err != nil {
		return false, err
	}
	paid, late := 0, ""
	for _, in := range inst {
		if in.Status != nil && *in.Status == string(lifecycle.ChargePaid) {
			paid++
			continue
		}
		due, err := bankcalendar.ParseDate(in.DueDate)
		if err != nil {
			return false, err
		}
		if late == "" && today.After(due.AddDays(st.AgreementGraceDays)) {
			late = fmt.Sprintf("installment %d, due %s, unpaid after %d days of grace", in.Number, due.BR(), st.AgreementGraceDays)
		}
	}
	switch {
	case paid == len(inst):
		return true, s.settleAgreement(ctx, tx, &a)
	case late != "":
		return true, s.unwindAgreement(ctx, tx, &a, lifecycle.AgreementBroken, late)
	case paid > 0 && a.Status == lifecycle.AgreementAccepted:
		now := s.Clock()
		return true, markAgreementActive(ctx, tx, a.ID, now)
	}
	return false, nil
}

// settleAgreement marks a's charges paid and a settled.
func (s *Service) settleAgreement(ctx context.Context, tx *store.Tx, a *ledger.AgreementRecord) error {
	charges, _, err := ledger.AgreementParts(ctx, tx, *a)
	if err != nil {
		return err
	}
	now := s.Clock()
	for _, row := range charges {
		c, err := ledger.LockCharge(ctx, tx, a.OrganizationID, row.ChargeID)
		if err != nil {
			return err
		}
		if c.Status.CanBecome(lifecycle.ChargePaid) != nil {
			continue
		}
		next := c
		next.Status, next.PaidAt = lifecycle.ChargePaid, &now
		if _, err := s.ApplyCharge(ctx, tx, c, ledger.ChargeChange{Next: next}); err != nil {
			return err
		}
	}
	return s.endAgreement(ctx, tx, a, lifecycle.AgreementSettled, "every installment paid")
}

// unwindAgreement ends an accepted or active agreement as broken or
// canceled: its unpaid installments' charges are canceled and its
// charges, oldest due first, owe again what they owed when it was
// proposed less what the installments paid (a charge the payments cover
// entirely is paid), and go back to overdue.
func (s *Service) unwindAgreement(ctx context.Context, tx *store.Tx, a *ledger.AgreementRecord, to lifecycle.AgreementStatus, reason string) error {
	charges, inst, err := ledger.AgreementParts(ctx, tx, *a)
	if err != nil {
		return err
	}
	now := s.Clock()
	var paid money.Cents
	for _, in := range inst {
		if in.ChargeID == nil {
			continue
		}
		c, err := ledger.LockCharge(ctx, tx, a.OrganizationID, *in.ChargeID)
		if err != nil {
			return err
		}
		paid += c.Amount - c.OpenAmount
		if !c.Status.Collectible() {
			continue
		}
		next := c
		next.Status = lifecycle.ChargeCanceled
		if _, err := s.ApplyCharge(ctx, tx, c, ledger.ChargeChange{Next: next}); err != nil {
			return err
		}
	}
	for _, row := range charges {
		c, err := ledger.LockCharge(ctx, tx, a.OrganizationID, row.ChargeID)
		if err != nil {
			return err
		}
		if c.Status != lifecycle.ChargeInAgreement {
			continue
		}
		covered := min(paid, row.Open)
		paid -= covered
		owed := row.Open - covered
		// The charge owes again the principal the agreement did not pay
		// of what was open when it was proposed (row.Open); its fine and
		// interest run on it as its ledger says.
		next := c
		if owed == 0 {
			next.Status, next.PaidAt = lifecycle.ChargePaid, &now
		} else {
			next.Status, next.OpenAmount = lifecycle.ChargeOverdue, owed
		}
		if _, err := s.ApplyCharge(ctx, tx, c, ledger.ChargeChange{Next: next}); err != nil {
			return err
		}
	}
	return s.endAgreement(ctx, tx, a, to, reason)
}
