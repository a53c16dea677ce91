package records

import (
	"context"
	"fmt"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// UsageMonth is the calendar month (UTC) usage of instant t counts in.
func UsageMonth(t time.Time) string { return t.UTC().Format("2006-01") }

// RecordStepCost adds a step's cost and tokens to its execution and to
// the organization's month, in the caller's transaction, so a step's
// record and what it cost commit together (or not at all).
func (m *Machine) RecordStepCost(ctx context.Context, tx *store.Tx, exec *Execution, cents int64, tokens Tokens) error {
	if cents < 0 {
		return fmt.Errorf("kadu: negative step cost %d", cents)
	}
	now := m.Clock()
	if err := addExecutionCost(ctx, tx, exec.OrganizationID, exec.ID, cents, tokens, now); err != nil {
		return err
	}
	if err := AddUsage(ctx, tx, exec.OrganizationID, UsageMonth(now), cents, tokens, 0, now); err != nil {
		return err
	}
	exec.CostCents += cents
	exec.TokensIn += tokens.In
	exec.TokensOut += tokens.Out
	exec.TokensCached += tokens.Cached
	exec.UpdatedAt = now
	return nil
}
