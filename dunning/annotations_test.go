package dunning

import (
	"encoding/json"
	"testing"

	"github.com/kobana/kobana-mcp/productkit/catalogtest"
)

// Seed 002, "Tool annotations": idempotentHint is true on reads and on
// most destructive tools, false on ordinary writes — every tool that is
// neither read-only nor destructive, updates included.
func TestOrdinaryWritesAreNotIdempotent(t *testing.T) {
	t.Parallel()
	var list struct {
		Tools []struct {
			Name        string
			Annotations struct {
				ReadOnlyHint, DestructiveHint, IdempotentHint bool
			}
		}
	}
	if err := json.Unmarshal([]byte(catalogtest.List(t, Spec(), "tools/list")), &list); err != nil {
		t.Fatal(err)
	}
	writes := 0
	for _, tool := range list.Tools {
		a := tool.Annotations
		if a.ReadOnlyHint || a.DestructiveHint {
			continue
		}
		writes++
		if a.IdempotentHint {
			t.Errorf("%s: an ordinary write with idempotentHint true", tool.Name)
		}
	}
	if writes < 10 {
		t.Fatalf("only %d ordinary writes found: the catalog was not read", writes)
	}
}
