package kadu

import (
	"testing"

	"github.com/kobana/kobana-mcp/productkit/catalogtest"
)

// TestWiredWithoutHiddenState: Kadu is assembled only where its Spec
// builds it (newService, registerJobs): none of its files has an init()
// or a package variable holding a function (what validateWorkflow,
// lookupTool and newRunExecutionWorker were), and every operation's
// handler is a named function, so an operation reads from its
// declaration to its store without a closure in between.
func TestWiredWithoutHiddenState(t *testing.T) {
	for _, bad := range catalogtest.HiddenWiring(t, ".") {
		t.Error(bad)
	}
}
