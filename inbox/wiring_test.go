package inbox

import (
	"testing"

	"github.com/kobana/kobana-mcp/productkit/catalogtest"
)

// TestWiredWithoutHiddenState: the Inbox is assembled only where its Spec
// builds it: none of its files has an init() or a package variable
// holding a function, and every operation's handler is a named function,
// so an operation reads from its declaration to its store without a
// closure in between. (catalogtest.HiddenWiring, shared with Kadu.)
func TestWiredWithoutHiddenState(t *testing.T) {
	for _, bad := range catalogtest.HiddenWiring(t, ".") {
		t.Error(bad)
	}
}
