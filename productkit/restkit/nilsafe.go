package restkit

// OrEmpty is s, or an empty slice when s is nil: a list in an answer is
// [] when it has nothing, never null, so a client reads every list the
// same way.
func OrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Deref is what p points to, or T's zero value when p is nil: for optional
// columns and fields (a nullable text read as ""), where absent and empty
// mean the same.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
