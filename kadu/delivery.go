package kadu

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/jobs"
	"github.com/kobana/kobana-mcp/platform/mail"
	"github.com/kobana/kobana-mcp/platform/messaging"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
)

// Results delivered: when an execution ends (or starts waiting for a
// person), the task's destinations hear of it. The webhook event is
// emitted and each e-mail's job enqueued in the transaction that changes
// the status (DeliverTransition, called by records.Machine.Transition),
// so a status change and its deliveries commit together or not at all.
// docs/decisions.md "Kadu: files, results and webhook rotation".

// emailLinkTTL is how long the download links in a result e-mail work:
// longer than an API download URL (a person reads mail later), still
// short-lived.
const emailLinkTTL = 24 * time.Hour

// outcomeEvent is the webhook event of a status, or "" for a status that
// delivers nothing (queued, running). timed_out is delivered as failed.
func outcomeEvent(status string) string {
	switch status {
	case records.ExecSucceeded, records.ExecFailed, records.ExecCanceled, records.ExecCostExceeded, records.ExecWaitingApproval, records.ExecWaitingInput,
		records.ExecWaitingBudget:
		return "kadu.execution." + status
	case records.ExecTimedOut:
		return "kadu.execution.failed"
	}
	return ""
}

// DeliverTransition emits the execution's webhook event and enqueues its
// e-mails in tx, for the task's destinations that want the new status.
func (s *service) DeliverTransition(ctx context.Context, tx *store.Tx, e *records.Execution) error {
	slug := outcomeEvent(e.Status)
	if slug == "" {
		return nil
	}
	t, err := records.TaskOfExecution(ctx, tx, e)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	var hook bool
	var emails []string
	for _, d := range t.Destinations {
		if !d.Wants(e.Status) {
			continue
		}
		switch d.Kind {
		case "webhook":
			hook = true
		case "email":
			if !slices.Contains(emails, d.Target) {
				emails = append(emails, d.Target)
			}
		}
	}
	if hook && s.hooks != nil {
		ws, err := records.FirstWorkspace(ctx, tx, e.OrganizationID)
		if err != nil {
			return err
		}
		data, err := s.resultData(ctx, tx, e, t)
		if err != nil {
			return err
		}
		if _, err := s.hooks.Emit(ctx, tx, webhooks.Event{OrganizationID: e.OrganizationID, WorkspaceID: ws, Slug: slug,
			SubjectID: e.ID, Data: data}); err != nil {
			return err
		}
	}
	if len(emails) > 0 && s.jobs != nil {
		for _, to := range emails {
			if _, err := s.jobs.EnqueueTx(ctx, tx, resultEmailArgs{OrganizationID: e.OrganizationID, ExecutionID: e.ID, Status: e.Status, To: to}, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// resultData is the event's data: the execution as the API shows it, its
// task's name and its output files (metadata; bytes through
// kadu_files_download).
func (s *service) resultData(ctx context.Context, q store.Querier, e *records.Execution, t *records.Task) (map[string]any, error) {
	files, err := records.ExecutionOutputs(ctx, q, e.OrganizationID, e.ID)
	if err != nil {
		return nil, err
	}
	out := make([]records.FileJSON, len(files))
	for i := range files {
		out[i] = records.ToFileJSON(&files[i])
	}
	return map[string]any{"execution": toExecutionJSON(e), "task": map[string]any{"id": t.ID, "name": t.Name}, "output_files": out}, nil
}

// resultEmailArgs e-mail one execution's result to one address.
type resultEmailArgs struct {
	OrganizationID string `json:"organization_id"`
	ExecutionID    string `json:"execution_id"`
	Status         string `json:"status"`
	To             string `json:"to"`
}

// Kind names the job.
func (resultEmailArgs) Kind() string { return "kadu.result_email" }

type resultEmailWorker struct {
	river.WorkerDefaults[resultEmailArgs]
	s *service
}

// Timeout bounds one send.
func (*resultEmailWorker) Timeout(*river.Job[resultEmailArgs]) time.Duration { return time.Minute }

// Work sends the e-mail; a permanent refusal (the address does not
// exist, or is not one — an address stored before platform/address
// checked destinations) is not retried, and is recorded on the execution
// as a failed step (recordDeliveryFailure), so whoever reads the
// execution sees the result did not reach that address.
func (w *resultEmailWorker) Work(ctx context.Context, j *river.Job[resultEmailArgs]) error {
	err := w.s.sendResultEmail(ctx, j.Args)
	var me *messaging.Error
	if errors.As(err, &me) && me.Permanent {
		if w.s.log != nil {
			w.s.log.Warn("kadu: a result e-mail was refused", "execution", j.Args.ExecutionID, "error", err)
		}
		return w.s.recordDeliveryFailure(ctx, j.Args, err)
	}
	return err
}

// deliveryStepTool names the step a refused result e-mail leaves on its
// execution. It is no tool the agent can call (tool names have no dot).
const deliveryStepTool = "kadu.result_email"

// recordDeliveryFailure appends a failed tool_call step named
// deliveryStepTool to the execution, its arguments the address and the
// status delivered, its error why the e-mail was refused: GET
// /executions/{id}/steps shows it beside the steps that produced the
// result. When recording fails the job is retried and records the
// refusal then.
func (s *service) recordDeliveryFailure(ctx context.Context, a resultEmailArgs, cause error) error {
	e, err := records.GetExecution(ctx, s.db, a.OrganizationID, a.ExecutionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	args, err := json.Marshal(map[string]string{"to": a.To, "status": a.Status})
	if err != nil {
		return err
	}
	step, err := s.machine.BeginStep(ctx, s.db, e, records.StepStart{Kind: records.StepToolCall, Tool: deliveryStepTool, Arguments: args})
	if err != nil {
		return err
	}
	return s.machine.FinishStep(ctx, s.db, e, step, records.StepOutcome{Status: records.StepFailed,
		Error: "the result e-mail was not delivered: " + records.Summarize(cause.Error(), 500)})
}

func registerDelivery(s *service, q *jobs.Queue) {
	jobs.AddWorker(q, &resultEmailWorker{s: s})
}

// sendResultEmail writes and sends the result e-mail: what ran, how it
// ended, the output (cut), and links to the output files that work for
// emailLinkTTL — never the files attached.
func (s *service) sendResultEmail(ctx context.Context, a resultEmailArgs) error {
	if s.mail == nil {
		if s.log != nil {
			s.log.Warn("kadu: an e-mail destination, but no --kadu-smtp-host: nothing sent", "execution", a.ExecutionID)
		}
		return nil
	}
	e, err := records.GetExecution(ctx, s.db, a.OrganizationID, a.ExecutionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	t, err := records.TaskOfExecution(ctx, s.db, e)
	if err != nil {
		return err
	}
	files, err := records.ExecutionOutputs(ctx, s.db, e.OrganizationID, e.ID)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Task: %s\nExecution: %s\nStatus: %s\nCost: %s\n", t.Name, e.ID, a.Status, money.Cents(e.CostCents).String())
	if e.ErrorMessage != nil {
		fmt.Fprintf(&b, "Error: %s\n", *e.ErrorMessage)
	}
	if e.OutputJSON != nil {
		out := *e.OutputJSON
		var v any
		if json.Unmarshal([]byte(out), &v) == nil {
			if pretty, err := json.MarshalIndent(v, "", "  "); err == nil {
				out = string(pretty)
			}
		}
		fmt.Fprintf(&b, "\nOutput:\n%s\n", records.Summarize(out, 8000))
	}
	if len(files) > 0 {
		fmt.Fprintf(&b, "\nOutput files (links valid for %s):\n", emailLinkTTL)
		for i := range files {
			u, _, err := s.fileURL(ctx, &files[i], emailLinkTTL)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "- %s (%d bytes): %s\n", files[i].Filename, files[i].ByteSize, u)
		}
	}
	sum := sha256.Sum256([]byte(strings.ToLower(a.To) + "\n" + a.Status))
	_, err = s.mail.client.Send(ctx, mail.Message{To: a.To, Subject: fmt.Sprintf("Kadu: %s — %s", t.Name, a.Status), Text: b.String(),
		MessageID: "kadu-" + e.ID + "-" + hex.EncodeToString(sum[:6]) + "@kadu.kobana"})
	return err
}
