package productkit

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestLifecycleAddsUp: a product that calls Lifecycle twice (Dunning's
// embedded bureau and its Pix webhook listener) gets both: the starts in
// order (the second not run when the first fails), the shutdowns in
// reverse order with both errors, the announcements joined; nil parts
// leave the others alone.
func TestLifecycleAddsUp(t *testing.T) {
	t.Parallel()
	var calls []string
	step := func(name string, err error) func(context.Context) error {
		return func(context.Context) error { calls = append(calls, name); return err }
	}
	errA, errB := errors.New("a"), errors.New("b")
	b := &Builder{}
	b.Lifecycle(step("start a", nil), step("stop a", errA), func() []string { return []string{"a"} })
	b.Lifecycle(nil, nil, nil)
	b.Lifecycle(step("start b", nil), step("stop b", errB), func() []string { return []string{"b"} })
	ctx := context.Background()
	if err := b.listener.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.listener.Shutdown(ctx); !errors.Is(err, errA) || !errors.Is(err, errB) {
		t.Fatalf("shutdown: %v", err)
	}
	if !slices.Equal(calls, []string{"start a", "start b", "stop b", "stop a"}) {
		t.Fatalf("calls: %v", calls)
	}
	if got := b.listener.Announce(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("announce: %v", got)
	}
	calls = nil
	failing := &Builder{}
	failing.Lifecycle(step("start a", errA), nil, nil)
	failing.Lifecycle(step("start b", nil), nil, nil)
	if err := failing.listener.Start(ctx); !errors.Is(err, errA) || !slices.Equal(calls, []string{"start a"}) {
		t.Fatalf("a failing start: %v %v", err, calls)
	}
}
