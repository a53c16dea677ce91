package restkit

import (
	"encoding/json"
	"testing"
)

// A nil list encodes as [], a list with items as itself; a nil pointer
// reads as the zero value.
func TestNilSafe(t *testing.T) {
	var none []int
	if b, _ := json.Marshal(OrEmpty(none)); string(b) != "[]" {
		t.Errorf("nil list: %s", b)
	}
	if b, _ := json.Marshal(OrEmpty([]int{1})); string(b) != "[1]" {
		t.Errorf("list: %s", b)
	}
	s, n := "x", 7
	if Deref((*string)(nil)) != "" || Deref(&s) != "x" || Deref((*int)(nil)) != 0 || Deref(&n) != 7 {
		t.Error("Deref")
	}
}
