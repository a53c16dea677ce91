package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/smtp"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// startCommand runs a kobana-mcp command until the test ends (as SIGTERM
// would stop it, expecting exit 0) and returns its first stdout line that
// contains want.
func startCommand(t *testing.T, args []string, want string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	stderr := &syncWriter{}
	go func() { done <- run(ctx, args, pw, stderr); pw.Close() }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("%s exited %d: %s", args[0], code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Errorf("%s did not stop", args[0])
		}
	})
	lines := bufio.NewScanner(pr)
	found := ""
	for found == "" && lines.Scan() {
		if strings.Contains(lines.Text(), want) {
			found = lines.Text()
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if found == "" {
		t.Fatalf("%s never printed %q: %s", args[0], want, stderr.String())
	}
	return found
}

// startProcess runs the built binary with args as its own OS process
// until the test ends (then SIGTERM, expecting exit 0) and returns its
// first stdout line that contains want.
func startProcess(t *testing.T, bin string, args []string, want string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = childEnv()
	stderr := &syncWriter{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		sent := false
		for lines.Scan() {
			if !sent && strings.Contains(lines.Text(), want) {
				found <- lines.Text()
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("%s exited with %v: %s", args[0], err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("%s did not stop after SIGTERM", args[0])
		}
	})
	select {
	case line, ok := <-found:
		if !ok {
			t.Fatalf("%s stopped without printing %q: %s", args[0], want, stderr.String())
		}
		return line
	case <-time.After(serveReadyWithin):
		t.Fatalf("%s never printed %q within %s: %s", args[0], want, serveReadyWithin, stderr.String())
	}
	return ""
}

// TestWorkerWorksForAnAPIReplica is the scale-out shape, as two OS
// processes of the real binary on one database: `serve --jobs=off`
// receives mail, processes a small one at its intake with the built-in
// extractor (docs/decisions.md, "The built-in extractor runs at intake")
// and enqueues the rest — here the e-mail's reprocess; a separate
// `kobana-mcp worker` works the job. The reprocessed e-mail ends
// processed again, which only the worker can have done.
func TestWorkerWorksForAnAPIReplica(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, engine := range storetest.Engines {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			dataDir := t.TempDir()
			dbURL := ""
			if engine == store.Postgres {
				dbURL = storetest.URL(t, engine)
			}
			addr := freePort(t)
			common := []string{"--data-dir", dataDir, "--database-url", dbURL, "--products", "inbox"}
			line := startProcess(t, bin, append([]string{"serve", "--inbox-addr", addr, "--inbox-smtp-addr", "127.0.0.1:0", "--jobs", "off"}, common...), "SMTP intake: smtp://")
			_, rest, _ := strings.Cut(line, "smtp://")
			smtpAddr, _, _ := strings.Cut(rest, " ")
			tok := demoToken(t, dataDir, dbURL, addr, "api")
			do := func(method, path, body string) map[string]any {
				req, _ := http.NewRequest(method, "http://"+addr+"/api/v1"+path, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+tok)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var doc map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&doc)
				return doc
			}
			ib := do("POST", "/inboxes", `{"label":"Scale"}`)["data"].(map[string]any)
			mail, _ := os.ReadFile("../../examples/inbox/boleto.eml")
			if err := smtp.SendMail(smtpAddr, nil, "cobranca@acme.example", []string{ib["email"].(string)}, mail); err != nil {
				t.Fatal(err)
			}
			// The replica's intake processed it; its reprocess is a job.
			list := do("GET", "/emails", "")["data"].([]any)
			if len(list) != 1 || list[0].(map[string]any)["status"] != "processed" {
				t.Fatalf("after the intake: %v", list)
			}
			id := list[0].(map[string]any)["id"].(string)
			if got := do("POST", "/emails/"+id+"/reprocess", ""); got["data"] == nil {
				t.Fatalf("reprocess: %v", got)
			}
			// Without a worker the e-mail waits, processing.
			time.Sleep(500 * time.Millisecond)
			list = do("GET", "/emails", "")["data"].([]any)
			if len(list) != 1 || list[0].(map[string]any)["status"] != "processing" {
				t.Fatalf("before the worker: %v", list)
			}
			startProcess(t, bin, append([]string{"worker"}, common...), "working jobs")
			deadline := time.Now().Add(30 * time.Second)
			for {
				list = do("GET", "/emails", "")["data"].([]any)
				if list[0].(map[string]any)["status"] == "processed" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the worker did not process the e-mail: %v", list)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}
