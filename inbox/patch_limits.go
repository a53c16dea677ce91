package inbox

// The limits a PATCH may change (an inbox's attachment limits, a
// workspace's monthly e-mails limit) take -1 to remove one, as their input
// schemas say (minimum -1).

// clearable turns a PATCH limit into the stored one: -1 (any negative)
// removes the limit.
func clearable[T int | int64](v T) *T {
	if v < 0 {
		return nil
	}
	return &v
}
