package escalation

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/dunning/bureau"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/dunning/lifecycle"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/rest"
)

// commandWorker takes a command to its provider. The call is made outside
// any transaction with the command's id as Idempotency-Key, so a retry
// after a timeout, a 5xx or a crash finds the provider's first answer
// instead of registering the debt twice; each answer is then written with
// a conditional UPDATE on the status the call started from, so a charge
// paid during the call (the command asked out meanwhile) is seen and the
// way out runs next.
type commandWorker struct {
	river.WorkerDefaults[commandArgs]
	s *Service
}

// Timeout bounds one run: two calls of the provider at most.
func (w *commandWorker) Timeout(*river.Job[commandArgs]) time.Duration { return time.Minute }

// NextRetry doubles the wait from the setup's retry base, up to an hour.
func (w *commandWorker) NextRetry(job *river.Job[commandArgs]) time.Time {
	d := w.s.Bureaus.RetryBase << min(job.Attempt-1, 12)
	return time.Now().Add(min(d, time.Hour))
}

// Work runs the command's next call.
func (w *commandWorker) Work(ctx context.Context, job *river.Job[commandArgs]) error {
	err := w.s.runCommand(ctx, job.Args)
	if err != nil && job.Attempt >= commandAttempts {
		// Out of retries: a report or protest never registered is error
		// (a person decides); one on its way out stays there, and the
		// removal watch raises it when its deadline passes.
		if e := w.s.commandGaveUp(ctx, job.Args, err); e != nil {
			return e
		}
		return nil
	}
	return err
}

// runCommand makes the call cmd's status asks for and records the
// answer; a temporary failure is returned for the queue to retry.
func (s *Service) runCommand(ctx context.Context, a commandArgs) error {
	for round := 0; round < 3; round++ {
		cmd, err := getOrgCommand(ctx, s.DB, a.OrganizationID, a.CommandID)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return err
		}
		k := kindOf(cmd.Kind)
		switch cmd.Status {
		case lifecycle.CommandRequested:
			if cmd.Protocol != nil {
				return nil // pending at the provider: its callback decides
			}
			ans, err := s.submit(ctx, cmd)
			var ref *bureau.Refusal
			if errors.As(err, &ref) {
				return s.finishCommand(ctx, cmd, lifecycle.CommandFailed, "", ref.Reason)
			}
			if err != nil {
				return err
			}
			to := lifecycle.CommandRequested
			if ans.Status == bureau.StatusConfirmed {
				to = lifecycle.CommandConfirmed
			}
			if changed, err := s.recordSubmit(ctx, cmd, to, ans.Protocol); err != nil || changed {
				return err
			}
			// Asked out during the call: the next round withdraws it.
		case k.exiting:
			protocol := ""
			if cmd.Protocol != nil {
				protocol = *cmd.Protocol
			} else {
				// Never answered before it was asked out: the same
				// reference finds (or makes) the record to withdraw.
				ans, err := s.submit(ctx, cmd)
				var ref *bureau.Refusal
				if errors.As(err, &ref) {
					return s.finishCommand(ctx, cmd, k.exited, "", "never registered: "+ref.Reason)
				}
				if err != nil {
					return err
				}
				protocol = ans.Protocol
				if err := setCommandProtocol(ctx, s.DB, cmd.ID, protocol); err != nil {
					return err
				}
			}
			consent := ""
			if cmd.ConsentDocumentID != nil {
				consent = *cmd.ConsentDocumentID
			}
			reason := ""
			if cmd.ExitReason != nil {
				reason = *cmd.ExitReason
			}
			ans, err := s.Bureaus.Provider.Withdraw(ctx, cmd.Provider, protocol, bureau.Withdrawal{Reference: cmd.ID, Reason: reason,
				ConsentDocumentID: consent, CallbackURL: s.commandCallbackURL(cmd.ID)})
			var ref *bureau.Refusal
			if errors.As(err, &ref) {
				msg := "the provider refused the withdrawal: " + ref.Reason
				return setCommandError(ctx, s.DB, cmd.ID, msg, s.Clock())
			}
			if err != nil {
				return err
			}
			if ans.Status == bureau.StatusRemoved || ans.Status == bureau.StatusCanceled {
				return s.finishCommand(ctx, cmd, k.exited, protocol, "")
			}
			return nil // pending: its callback finishes it
		default:
			return nil
		}
	}
	return nil
}

func (s *Service) submit(ctx context.Context, cmd command) (bureau.Answer, error) {
	req, err := loadCommandRequest(ctx, s.DB, cmd)
	if err != nil {
		return bureau.Answer{}, err
	}
	creditor := ""
	if org, err := s.Accounts.GetOrganization(ctx, cmd.OrganizationID); err == nil {
		creditor = org.Name
	}
	return s.Bureaus.Provider.Submit(ctx, cmd.Provider, bureau.Request{Reference: cmd.ID,
		Debtor:      bureau.Debtor{Name: req.DebtorName, Document: req.DebtorDocument},
		AmountCents: int64(cmd.Amount), DueDate: req.DueDateText, Description: req.Description, Creditor: creditor,
		CallbackURL: s.commandCallbackURL(cmd.ID)})
}

// recordSubmit writes the answer to a submit made from requested; false
// when the command left requested meanwhile (only the protocol is kept).
func (s *Service) recordSubmit(ctx context.Context, cmd command, to lifecycle.CommandStatus, protocol string) (bool, error) {
	changed := false
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		now := s.Clock()
		if err := recordSubmitAnswer(ctx, tx, cmd.ID, to, protocol, now); errors.Is(err, store.ErrNotFound) {
			return keepCommandProtocol(ctx, tx, cmd.ID, protocol)
		} else if err != nil {
			return err
		}
		changed = true
		if to != lifecycle.CommandConfirmed {
			return nil
		}
		fresh, err := getCommand(ctx, tx, cmd.OrganizationID, cmd.Kind, cmd.ID, "")
		if err != nil {
			return err
		}
		return s.emitCommandEvent(ctx, tx, kindOf(cmd.Kind).evConfirmed, fresh)
	})
	return changed, err
}

// finishCommand moves cmd to a final status (failed, removed, canceled)
// or confirmed, from the status it was read in, with its event; a
// command that moved meanwhile is left to the next reading.
func (s *Service) finishCommand(ctx context.Context, cmd command, to lifecycle.CommandStatus, protocol, why string) error {
	k := kindOf(cmd.Kind)
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return s.finishCommandTx(ctx, tx, k, cmd, to, protocol, why)
	})
}

func (s *Service) finishCommandTx(ctx context.Context, tx *store.Tx, k commandKind, cmd command, to lifecycle.CommandStatus, protocol, why string) error {
	if err := k.machine.Check(cmd.Status, to); err != nil {
		return nil // already there, or moved on: nothing to record
	}
	now := s.Clock()
	var errText *string
	if why != "" {
		errText = &why
	}
	slug := ""
	switch to {
	case lifecycle.CommandConfirmed:
		slug = k.evConfirmed
	case lifecycle.CommandFailed:
		slug = k.evFailed
	case lifecycle.CommandError:
	case k.exited:
		slug = k.evExited
	}
	if err := recordCommandOutcome(ctx, tx, cmd, to, k.exited, errText, protocol, now); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	if slug == "" {
		return nil
	}
	fresh, err := getCommand(ctx, tx, cmd.OrganizationID, cmd.Kind, cmd.ID, "")
	if err != nil {
		return err
	}
	return s.emitCommandEvent(ctx, tx, slug, fresh)
}

// commandGaveUp records the last failure of a command out of retries.
func (s *Service) commandGaveUp(ctx context.Context, a commandArgs, cause error) error {
	cmd, err := getOrgCommand(ctx, s.DB, a.OrganizationID, a.CommandID)
	if err != nil {
		return err
	}
	if cmd.Status == lifecycle.CommandRequested && cmd.Protocol == nil {
		return s.finishCommand(ctx, cmd, lifecycle.CommandError, "", "the provider could not be reached: "+cause.Error())
	}
	return setCommandError(ctx, s.DB, cmd.ID, "the provider could not be reached: "+cause.Error(), s.Clock())
}

// commandCallbackURL is where a provider posts the later outcome of
// command id.
func (s *Service) commandCallbackURL(id string) string {
	if s.Bureaus.CallbackBase == "" {
		return ""
	}
	return s.Bureaus.CallbackBase + ledger.APIBase + "/callbacks/bureaus/" + url.PathEscape(id)
}

// mountCommandCallbacks serves the providers' callbacks: public (a
// provider has no token of ours) and trusted only when the signature
// verifies with the shared secret. A callback moves a command only
// forward (the transition tables): a late "confirmed" of a report already
// asked out records its confirmation time and nothing else.
func (s *Service) mountCommandCallbacks(mux *http.ServeMux, api *rest.API) {
	mux.HandleFunc("POST "+ledger.APIBase+"/callbacks/bureaus/{id}", func(w http.ResponseWriter, r *http.Request) {
		cb, err := bureau.ReadCallback(r, s.Bureaus.Secret)
		if errors.Is(err, bureau.ErrBadSignature) {
			api.WriteError(w, rest.Forbidden("the request's "+bureau.SignatureHeader+" does not verify"))
			return
		} else if err != nil {
			api.WriteError(w, &rest.Error{Status: http.StatusBadRequest, Code: rest.CodeBadRequest, Message: err.Error()})
			return
		}
		id := r.PathValue("id")
		if cb.Reference != id {
			api.WriteError(w, &rest.Error{Status: http.StatusBadRequest, Code: rest.CodeBadRequest, Message: "the callback's reference is another command"})
			return
		}
		err = s.applyCommandCallback(r.Context(), id, cb)
		if errors.Is(err, store.ErrNotFound) {
			api.WriteError(w, rest.NotFound("command"))
			return
		} else if err != nil {
			s.Log.ErrorContext(r.Context(), "dunning: bureau callback", "error", err)
			api.WriteError(w, &rest.Error{Status: http.StatusInternalServerError, Code: rest.CodeInternal, Message: "internal error"})
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *Service) applyCommandCallback(ctx context.Context, id string, cb bureau.Callback) error {
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		cmd, err := lockCommand(ctx, tx, id)
		if err != nil {
			return err
		}
		k := kindOf(cmd.Kind)
		switch cb.Status {
		case bureau.StatusConfirmed:
			if cmd.Status == k.exiting {
				return recordLateConfirmation(ctx, tx, cmd.ID, cb.Protocol, s.Clock())
			}
			return s.finishCommandTx(ctx, tx, k, cmd, lifecycle.CommandConfirmed, cb.Protocol, "")
		case bureau.StatusFailed:
			return s.finishCommandTx(ctx, tx, k, cmd, lifecycle.CommandFailed, cb.Protocol, cb.Reason)
		case bureau.StatusRemoved, bureau.StatusCanceled:
			return s.finishCommandTx(ctx, tx, k, cmd, k.exited, cb.Protocol, "")
		}
		return nil
	})
}

// removalWatchArgs is the hourly run of the removal watch.
type removalWatchArgs struct{}

// Kind names the job in the queue.
func (removalWatchArgs) Kind() string { return "dunning.removal_watch" }

type removalWatchWorker struct {
	river.WorkerDefaults[removalWatchArgs]
	s *Service
}

// Work raises the removals past their deadline.
func (w *removalWatchWorker) Work(ctx context.Context, _ *river.Job[removalWatchArgs]) error {
	_, err := w.s.WatchRemovals(ctx)
	return err
}

// WatchRemovals finds the reports whose removal is still not confirmed
// past its five-business-day deadline, marks each once
// (exit_overdue_at) and emits dunning.credit_report.removal_overdue, and
// answers how many it raised.
func (s *Service) WatchRemovals(ctx context.Context) (int, error) {
	now := s.Clock()
	late, err := overdueRemovals(ctx, s.DB, now)
	if err != nil {
		return 0, err
	}
	raised := 0
	for _, cmd := range late {
		err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
			if err := markRemovalOverdue(ctx, tx, cmd.ID, now); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return nil
				}
				return err
			}
			raised++
			cmd.ExitOverdueAt, cmd.UpdatedAt = &now, now
			return s.emitCommandEvent(ctx, tx, EventCreditReportRemovalOverdue, cmd)
		})
		if err != nil {
			return raised, fmt.Errorf("dunning: removal watch, %s: %w", cmd.ID, err)
		}
	}
	return raised, nil
}

// registerCommandJobs registers the command worker and the watch, hourly
// at minute 7 (and at a leader's start) when periodic.
func (s *Service) registerCommandJobs(q *jobs.Queue, periodic bool) {
	jobs.AddWorker(q, &commandWorker{s: s})
	jobs.AddWorker(q, &removalWatchWorker{s: s})
	if periodic {
		q.AddPeriodic(ledger.Hourly{Min: 7}, func() (river.JobArgs, *river.InsertOpts) { return removalWatchArgs{}, nil }, true)
	}
}
