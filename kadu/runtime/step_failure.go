package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kobana/kobana-mcp/kadu/wflang"
	"github.com/kobana/kobana-mcp/platform/store"
)

// stepError records a step that failed before its call (a condition
// that did not evaluate) and applies on_error.
func (r *run) stepError(ctx context.Context, i int, st wflang.Compiled, ans toolAnswer, next func(*store.Tx, json.RawMessage) error) error {
	if err := r.recordFailedCall(ctx, st.Tool, nil, ans, func(tx *store.Tx) error { return next(tx, ans.Value) }); err != nil {
		return err
	}
	return r.afterFailure(ctx, i, st, ans)
}

// afterFailure applies a failed step's on_error: stop fails the
// execution, continue goes on (the step's result is its error).
func (r *run) afterFailure(ctx context.Context, i int, st wflang.Compiled, ans toolAnswer) error {
	if st.OnError == "continue" {
		return nil
	}
	return r.s.fail(ctx, r.e, failureCode(ans), fmt.Sprintf("step %d%s (%s) failed: %s", i+1, idNote(st.ID), st.Tool, ans.Error))
}

func idNote(id string) string {
	if id == "" {
		return ""
	}
	return " " + id
}
