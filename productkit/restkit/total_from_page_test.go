package restkit

import (
	"fmt"
	"testing"
)

func TestTotalFromPage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		offset, limit, n int
		total            int
		known            bool
	}{
		{0, 10, 0, 0, true},    // an empty first page: none
		{0, 10, 3, 3, true},    // a short first page: all of them
		{20, 10, 7, 27, true},  // a short later page: the last rows
		{0, 10, 10, 0, false},  // a full page: more may follow
		{20, 10, 10, 0, false}, // the same further on
		{30, 10, 0, 0, false},  // past the end: how far it reaches is not on the page
	} {
		total, known := TotalFromPage(c.offset, c.limit, c.n)
		if total != c.total || known != c.known {
			t.Errorf("TotalFromPage(%d, %d, %d) = %d, %v; want %d, %v", c.offset, c.limit, c.n, total, known, c.total, c.known)
		}
	}
}

// A listing reads its page first and counts only when the page cannot
// say how many rows there are.
func ExampleTotalFromPage() {
	rows := []string{"a", "b", "c"} // page 3 of 10 per page: offset 20
	if total, ok := TotalFromPage(20, 10, len(rows)); ok {
		fmt.Println("total", total)
	}
	if _, ok := TotalFromPage(20, 10, 10); !ok {
		fmt.Println("a full page: count")
	}
	// Output:
	// total 23
	// a full page: count
}
