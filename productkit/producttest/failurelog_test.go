package producttest

import (
	"fmt"
	"strings"
	"testing"
)

// The buffer keeps warnings and errors, drops infos, and keeps only the
// last failureLogLines.
func TestFailureLogKeepsTheLastWarnings(t *testing.T) {
	t.Parallel()
	log, fl := newFailureLog()
	log.Info("not kept")
	log.Warn("kept", "call", "sms")
	log.Error("kept too")
	if len(fl.lines) != 2 || !strings.Contains(fl.lines[0], `msg=kept call=sms`) || !strings.Contains(fl.lines[1], "kept too") {
		t.Fatalf("lines: %q", fl.lines)
	}
	for i := range failureLogLines + 10 {
		fmt.Fprintf(fl, "line %d\n", i)
	}
	if len(fl.lines) != failureLogLines || fl.lines[0] != "line 10\n" || fl.lines[len(fl.lines)-1] != fmt.Sprintf("line %d\n", failureLogLines+9) {
		t.Fatalf("kept %d lines, first %q", len(fl.lines), fl.lines[0])
	}
}
