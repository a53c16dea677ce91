package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/accounts"
)

// TestExpressionBombThroughTheAPI is issue 22's attack on the built
// binary: a workflow step whose argument doubles a string forty times. As
// written (it reads nothing of the run) it is refused when the task is
// saved, naming the step's field; written over the run's input it is
// saved, and its run fails with expression_budget_exceeded while the
// process stays up (before the budget it was killed for 23 GB within 30
// s). A run queued and left to a restart fails the same way in the new
// process, which stays up too. The child runs with GOMEMLIMIT=256MiB, so
// a build that is not bounded would show as a collector thrashing far
// past it and a kill, not pass quietly.
func TestExpressionBombThroughTheAPI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	kaduAddr, dunningAddr := freePort(t), freePort(t)
	base := "http://" + kaduAddr
	start := func(extra ...string) (*exec.Cmd, chan struct{}) {
		cmd := exec.Command(bin, append([]string{"serve", "--data-dir", dataDir, "--database-url", "", "--products", "kadu,dunning", "--shutdown-grace", "2s",
			"--kadu-addr", kaduAddr, "--kadu-public-url", base, "--dunning-addr", dunningAddr, "--dunning-public-url", "http://" + dunningAddr}, extra...)...)
		cmd.Env = append(childEnv(), "GOMEMLIMIT=256MiB")
		stderr := &syncWriter{}
		cmd.Stderr = stderr
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		ready := make(chan bool, 1)
		go func() {
			lines := bufio.NewScanner(stdout)
			n := 0
			for lines.Scan() {
				if strings.Contains(lines.Text(), " MCP endpoint: ") {
					if n++; n == 2 {
						ready <- true
					}
				}
			}
			_, _ = io.Copy(io.Discard, stdout)
		}()
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
		select {
		case <-ready:
		case <-exited:
			t.Fatalf("serve exited before printing its endpoints: %s", stderr.String())
		case <-time.After(serveReadyWithin):
			t.Fatalf("serve printed no endpoints within %s: %s", serveReadyWithin, stderr.String())
		}
		return cmd, exited
	}
	cmd, exited := start()
	var out, errOut strings.Builder
	tok := exec.Command(bin, "token", "--data-dir", dataDir, "--database-url", "", "--product", "kadu", "--resource", "api", "--user", accounts.DemoOwnerEmail,
		"--kadu-public-url", base, "--ttl", "30m")
	tok.Env, tok.Stdout, tok.Stderr = childEnv(), &out, &errOut
	if err := tok.Run(); err != nil {
		t.Fatalf("token: %v %s", err, errOut.String())
	}
	token := strings.TrimSpace(out.String())
	client := &http.Client{Timeout: 30 * time.Second}
	call := func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		var v map[string]any
		raw, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(raw, &v)
		if v == nil {
			v = map[string]any{"raw": string(raw)}
		}
		return resp.StatusCode, v
	}
	healthy := func() {
		t.Helper()
		resp, err := client.Get(base + "/healthz")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("/healthz: %v %v", resp, err)
		}
		resp.Body.Close()
	}

	// The probe, as written: refused at save.
	code, body := call("POST", "/api/v1/tasks", map[string]any{"name": "bomb", "steps": []any{map[string]any{"id": "a", "tool": "dunning_me",
		"arguments": map[string]any{"x": `{{ reduce(1..40, #acc + #acc, "ab") }}`}}}})
	if raw, _ := json.Marshal(body); code != 422 || !strings.Contains(string(raw), "steps.0.arguments.x") || !strings.Contains(string(raw), "expression budget exceeded") {
		t.Fatalf("the constant bomb: %d %s, want 422 naming steps.0.arguments.x", code, raw)
	}
	// Over the input: saved, and its run fails.
	code, task := call("POST", "/api/v1/tasks", map[string]any{"name": "bomb", "steps": []any{map[string]any{"id": "a", "tool": "dunning_me",
		"arguments": map[string]any{"x": `{{ reduce(1..40, #acc + #acc, input.seed) }}`}}}})
	if code != 201 && code != 200 {
		t.Fatalf("create: %d %v", code, task)
	}
	taskID, _ := task["id"].(string)
	if d, ok := task["data"].(map[string]any); ok && taskID == "" {
		taskID, _ = d["id"].(string)
	}
	run := func() string {
		t.Helper()
		code, e := call("POST", "/api/v1/tasks/"+taskID+"/run", map[string]any{"input": map[string]any{"seed": "ab"}})
		id, _ := e["id"].(string)
		if d, ok := e["data"].(map[string]any); ok && id == "" {
			id, _ = d["id"].(string)
		}
		if code/100 != 2 || id == "" {
			t.Fatalf("run: %d %v", code, e)
		}
		return id
	}
	settled := func(id string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			_, e := call("GET", "/api/v1/executions/"+id, nil)
			if d, ok := e["data"].(map[string]any); ok {
				e = d
			}
			if st, _ := e["status"].(string); st == "failed" {
				errObj, _ := e["error"].(map[string]any)
				if errObj["code"] != "expression_budget_exceeded" {
					t.Fatalf("execution %s: %v, want the error expression_budget_exceeded", id, e)
				}
				return
			} else if st == "succeeded" || st == "canceled" || time.Now().After(deadline) {
				t.Fatalf("execution %s: %v", id, e)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	settled(run())
	healthy()

	// A run queued and the process killed before it runs: the restarted
	// process runs it, fails it the same way, and stays up. The run is
	// queued by a process that works no jobs (--jobs off), so it is
	// certainly still queued when that process is killed (a process that
	// works jobs may take it first, and then only the rescue, minutes
	// later, would bring it back).
	_ = cmd.Process.Kill()
	<-exited
	cmd, exited = start("--jobs", "off")
	pending := run()
	_ = cmd.Process.Kill()
	<-exited
	start()
	settled(pending)
	healthy()
	settled(run())
	healthy()
}
