package httpx

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// A port another listener holds gets the flag that moves it; any other
// error gets nothing.
func TestBindHintNamesTheFlag(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	_, err = net.Listen("tcp", addr)
	if err == nil {
		t.Fatal("a second listener on a held port succeeded")
	}
	hint := BindHint(err, addr, "inbox-addr")
	for _, want := range []string{"another process is listening on " + addr, "--inbox-addr", "--inbox-addr 127.0.0.1:0"} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint %q lacks %q", hint, want)
		}
	}
	_, err = net.Listen("tcp", "192.0.2.1:0") // TEST-NET-1: not an address of this machine
	if err == nil {
		t.Skip("192.0.2.1 is bound on this machine")
	}
	if hint := BindHint(err, "192.0.2.1:0", "kadu-addr"); !strings.Contains(hint, "--kadu-addr") {
		t.Errorf("an address the machine lacks: hint %q (error %v)", hint, err)
	}
	if hint := BindHint(errors.New("something else"), addr, "inbox-addr"); hint != "" {
		t.Errorf("another error got %q", hint)
	}
}
