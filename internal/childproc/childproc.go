// Package childproc runs the test binary itself as a separate worker
// process, for the tests that prove crash safety by killing a real process
// with SIGKILL in the middle of its work (docs/decisions.md "Crash
// safety"). The parent test starts the child with a JSON configuration in
// an environment variable; the child's TestMain sees it and runs the
// worker instead of the tests.
package childproc

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
)

// Serve, called first in a TestMain, turns the process into the child
// when env is set: it runs run with the configuration and exits with its
// status. Without env it returns and the tests run.
func Serve(env string, run func(config []byte) int) {
	if raw := os.Getenv(env); raw != "" {
		os.Exit(run([]byte(raw)))
	}
}

// Child is a running child process.
type Child struct {
	cmd    *exec.Cmd
	out    *buffer
	mu     sync.Mutex
	killed bool
}

// Start runs the test binary as a child with config, as JSON, in env. It
// runs no tests (-test.run=^$), so only the TestMain's Serve acts. The
// child is killed when the test ends, if it still runs, and its output is
// logged if the test failed.
func Start(t testing.TB, env string, config any) *Child {
	t.Helper()
	raw, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	c := &Child{cmd: exec.Command(os.Args[0], "-test.run=^$"), out: &buffer{}}
	c.cmd.Env = append(os.Environ(), env+"="+string(raw))
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.mu.Lock()
		done := c.killed
		c.mu.Unlock()
		if !done {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
		if t.Failed() {
			t.Logf("child process output:\n%s", c.Output())
		}
	})
	return c
}

// Kill sends SIGKILL — nothing of the child runs after it, no deferred
// call, no shutdown — and waits for the process to be gone.
func (c *Child) Kill(t testing.TB) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
}

// Output is what the child printed so far, both streams.
func (c *Child) Output() string { return c.out.String() }

// buffer collects the child's output while the test reads it.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
