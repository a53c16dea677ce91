// Package cyclic is FileCycles' fixture: a.go and b.go use each other
// (a circle); c.go uses a.go only.
package cyclic

// A uses B's type.
type A struct{ b *B }

// Run calls B's method.
func (a A) Run() int { return a.b.Twice() }
