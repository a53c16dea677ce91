package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// readmeCallBlock is the README's `kobana-mcp call` block: the first sh
// block after its "**`kobana-mcp call`**" paragraph.
func readmeCallBlock(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\\*\\*`kobana-mcp call`\\*\\*.*?```sh\n(.*?)\n```").FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md has no kobana-mcp call block")
	}
	return string(m[1])
}

// exitMarkRE is the line the test adds after each command of the block.
var exitMarkRE = regexp.MustCompile(`\[command (\d+) exited (\d+)\]`)

// TestReadmeCallBlock runs the README's `kobana-mcp call` block as written,
// with bash on a pseudo-terminal (util-linux script) in a directory whose
// ./kobana-mcp is the built binary and whose ./data is a running serve's,
// answering the one question it asks with "y". Each command must exit as
// the README says (0, or the 3 its comment names); the exchange shown in
// its comments must be what the terminal showed; and a destructive tool of
// each product must have been confirmed and run: the workspace, the plan
// and the task are gone.
func TestReadmeCallBlock(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"script", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the README's call block needs %s: %v", tool, err)
			}
			t.Skipf("the README's call block needs %s: %v", tool, err)
		}
	}
	block := readmeCallBlock(t)
	// Each command is followed by a line printing its exit status.
	var script strings.Builder
	var wantExits []int
	var shown []string
	for _, line := range strings.Split(block, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "#"):
			shown = append(shown, strings.TrimSpace(strings.TrimPrefix(trimmed, "#")))
			script.WriteString(line + "\n")
			continue
		}
		want := 0
		if m := regexp.MustCompile(`# exit (\d+)`).FindStringSubmatch(line); m != nil {
			fmt.Sscan(m[1], &want)
		}
		wantExits = append(wantExits, want)
		fmt.Fprintf(&script, "%s\necho \"[command %d exited $?]\"\n", line, len(wantExits))
	}
	bin := buildBinary(t)
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.Symlink(bin, filepath.Join(dir, "kobana-mcp")); err != nil {
				t.Fatal(err)
			}
			s := startCallServeAt(t, engine, filepath.Join(dir, "data"))
			file := filepath.Join(dir, "block.sh")
			if err := os.WriteFile(file, []byte(script.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "script", "-qefc", "bash block.sh", "/dev/null")
			cmd.Dir = dir
			cmd.Env = append(cleanEnv(), "KOBANA_DATABASE_URL="+s.dbURL)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			var out syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The person: "y" to the one question, once it is asked.
			go answerWhenAsked(ctx, &out, stdin, "[y/N] ", "y\n")
			err = cmd.Wait()
			stdin.Close()
			text := strings.ReplaceAll(out.String(), "\r\n", "\n")
			if err != nil {
				t.Fatalf("the block: %v\n%s", err, text)
			}
			marks := exitMarkRE.FindAllStringSubmatch(text, -1)
			if len(marks) != len(wantExits) {
				t.Fatalf("%d commands ran, the block has %d:\n%s", len(marks), len(wantExits), text)
			}
			for i, m := range marks {
				if m[2] != fmt.Sprint(wantExits[i]) {
					t.Errorf("command %s exited %s, the README says %d:\n%s", m[1], m[2], wantExits[i], text)
				}
			}
			flat := strings.Join(strings.Fields(text), " ")
			for _, line := range shown {
				if !strings.Contains(flat, strings.Join(strings.Fields(line), " ")) {
					t.Errorf("the README shows %q, the terminal did not:\n%s", line, text)
				}
			}
			for _, c := range [][]string{
				{"--product", "inbox", "tool", "workspaces_get", "id=cli-demo"},
				{"--product", "dunning", "tool", "dunning_plans_get", "id=teste"},
			} {
				if r := s.call(t, terminal{}, c...); r.code != 1 || !strings.Contains(strings.ToLower(r.out), "not_found") {
					t.Errorf("%v after the block: %d %s%s", c, r.code, r.out, r.errOut)
				}
			}
			if r := s.call(t, terminal{}, "--product", "kadu", "tool", "kadu_tasks_list"); r.code != 0 || strings.Contains(r.out, `"Hello"`) {
				t.Errorf("the Kadu task after the block: %d %s%s", r.code, r.out, r.errOut)
			}
		})
	}
}

// answerWhenAsked writes answer to w once out shows prompt.
func answerWhenAsked(ctx context.Context, out *syncBuffer, w io.Writer, prompt, answer string) {
	for !strings.Contains(out.String(), prompt) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	_, _ = io.WriteString(w, answer)
}
