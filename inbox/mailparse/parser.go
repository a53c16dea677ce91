package mailparse

// parser carries the limits shared by the whole tree, nested messages
// included.
type parser struct {
	parts  int
	budget int64
}
