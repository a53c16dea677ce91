package cyclic

func (a A) name() string { return "a" }

// C uses A only.
func C() A { return A{} }
