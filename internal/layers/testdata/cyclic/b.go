package cyclic

// B uses A's method.
type B struct{ n int }

// Twice uses A.
func (b *B) Twice() int { return 2*b.n + len(A{}.name()) }
