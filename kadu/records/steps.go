package records

import (
	"context"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/platform/store"
)

// BeginStep records a step as started: the next seq of the execution
// (step_count counts them, unique per execution), committed with q's
// transaction. A step must begin before its call is made, so a crash
// leaves it started and the next run can mark it unknown.
func (m *Machine) BeginStep(ctx context.Context, q store.Querier, exec *Execution, st StepStart) (*Step, error) {
	switch st.Kind {
	case StepLLM, StepToolCall, StepMessage:
	default:
		return nil, fmt.Errorf("kadu: step kind %q", st.Kind)
	}
	now := m.Clock()
	step := &Step{ID: store.NewID(), OrganizationID: exec.OrganizationID, ExecutionID: exec.ID,
		Kind: st.Kind, Status: stepStarted, StartedAt: now, CreatedAt: now, UpdatedAt: now}
	if st.Tool != "" {
		tool := st.Tool
		step.ToolName = &tool
	}
	if len(st.Arguments) > 0 {
		args := redactArguments(st.Arguments)
		step.ArgumentsJSON = &args
	}
	err := q.WithTx(ctx, func(tx *store.Tx) error {
		seq, err := nextStepSeq(ctx, tx, exec.OrganizationID, exec.ID, now)
		if err != nil {
			return err
		}
		step.Seq = seq
		return insertStep(ctx, tx, step)
	})
	if err != nil {
		return nil, err
	}
	exec.StepCount = step.Seq
	return step, nil
}

// FinishStep records how a step ended and, in the same transaction, what
// it cost: the execution's and the month's totals (RecordStepCost).
func (m *Machine) FinishStep(ctx context.Context, q store.Querier, exec *Execution, step *Step, out StepOutcome) error {
	switch out.Status {
	case StepSucceeded, StepFailed, StepUnknown:
	default:
		return fmt.Errorf("kadu: step outcome %q", out.Status)
	}
	now := m.Clock()
	dur := max(now.Sub(step.StartedAt).Milliseconds(), 0)
	var summary, errMsg *string
	if out.ResultSummary != "" {
		summary = &out.ResultSummary
	}
	if out.Error != "" {
		errMsg = &out.Error
	}
	err := q.WithTx(ctx, func(tx *store.Tx) error {
		if err := setStepOutcome(ctx, tx, exec.ID, step.ID, out, summary, errMsg, dur, now); err != nil {
			return err
		}
		if out.CostCents == 0 && out.Usage == (Tokens{}) {
			return nil
		}
		return m.RecordStepCost(ctx, tx, exec, out.CostCents, out.Usage)
	})
	if err != nil {
		return err
	}
	step.Status, step.ResultSummary, step.ErrorMessage = out.Status, summary, errMsg
	step.TokensIn, step.TokensOut, step.TokensCached = out.Usage.In, out.Usage.Out, out.Usage.Cached
	step.CostCents, step.DurationMS, step.FinishedAt, step.UpdatedAt = out.CostCents, dur, &now, now
	return nil
}

// Summarize is a result cut to n bytes on a character boundary, for a
// step's result_summary.
func Summarize(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && (s[i]&0xC0) == 0x80 {
		i--
	}
	return s[:i] + "…"
}
