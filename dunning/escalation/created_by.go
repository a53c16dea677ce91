package escalation

import (
	"context"

	"github.com/kobana/kobana-mcp/dunning/notify"
	"github.com/kobana/kobana-mcp/platform/identity"
)

// createdByKey overrides who a write is recorded as made by (the debtor
// page's accept records the debtor: agreement_portal.go).
type createdByKey struct{}

// createdByOf names who asked: the person or the client, or the
// scheduler for a job without an identity.
func createdByOf(ctx context.Context) string {
	if by, ok := ctx.Value(createdByKey{}).(string); ok {
		return by
	}
	if identity.From(ctx) == nil {
		return notify.CreatedByScheduler
	}
	return notify.UserOf(ctx)
}
