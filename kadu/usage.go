package kadu

import (
	"context"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
)

// currentUsage is the organization's usage of the current month.
func (s *service) currentUsage(ctx context.Context, q store.Querier, orgID string) (records.Usage, error) {
	return records.MonthUsage(ctx, q, orgID, records.UsageMonth(s.clock()))
}
