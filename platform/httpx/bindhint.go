package httpx

import (
	"errors"
	"fmt"
	"syscall"
)

// BindHint is what a command adds to a listen error so that the person
// reading it knows what to do: for an address another process holds, the
// flag that moves this listener (flag without its dashes) and how to let
// the kernel pick a free port; for an address this machine does not have,
// or a port the user may not bind, the same flag. Empty for any other
// error. Every listener of serve uses it (the products' HTTP listeners,
// metrics, the profiler, the Inbox's SMTP intake).
func BindHint(err error, addr, flag string) string {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Sprintf(" (another process is listening on %s: stop it, or choose another address with --%s, e.g. --%s 127.0.0.1:0 for any free port)", addr, flag, flag)
	case errors.Is(err, syscall.EADDRNOTAVAIL), errors.Is(err, syscall.EACCES):
		return fmt.Sprintf(" (choose another address with --%s)", flag)
	}
	return ""
}
