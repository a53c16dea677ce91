package catalogtest

import (
	"slices"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// ScopeDescriptions checks that the spec describes, in plain words, every
// scope its operations require and nothing else
// (productkit.Spec.ScopeDescriptions): the consent page would otherwise
// show a bare scope name, or words for a scope no operation needs.
// Golden runs it.
func ScopeDescriptions(t *testing.T, spec *productkit.Spec) {
	t.Helper()
	scopes := spec.Scopes()
	for _, sc := range scopes {
		if spec.ScopeDescriptions[sc] == "" {
			t.Errorf("scope %s has no description in the %s spec's ScopeDescriptions", sc, spec.Key)
		}
	}
	for sc := range spec.ScopeDescriptions {
		if !slices.Contains(scopes, sc) {
			t.Errorf("the %s spec describes scope %s, which no operation requires", spec.Key, sc)
		}
	}
}
