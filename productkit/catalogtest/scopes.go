package catalogtest

import (
	"slices"
	"testing"

	"github.com/kobana/kobana-mcp/productkit"
)

// ScopeDescriptions checks that the spec describes, in plain words, every
// scope its operations require, in both of the pages' languages, and
// nothing else
// (productkit.Spec.ScopeDescriptions): the consent page would otherwise
// show a bare scope name, or words for a scope no operation needs.
// Golden runs it.
func ScopeDescriptions(t *testing.T, spec *productkit.Spec) {
	t.Helper()
	scopes := spec.Scopes()
	for _, sc := range scopes {
		if d := spec.ScopeDescriptions[sc]; d.PT == "" || d.EN == "" {
			t.Errorf("scope %s has no description in both languages in the %s spec's ScopeDescriptions: %+v", sc, spec.Key, d)
		}
	}
	for sc := range spec.ScopeDescriptions {
		if !slices.Contains(scopes, sc) {
			t.Errorf("the %s spec describes scope %s, which no operation requires", spec.Key, sc)
		}
	}
}
