package kadu

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
	"github.com/kobana/kobana-mcp/productkit/producttest"
)

// The execution page in a real browser: headless Chromium (chromedp, as
// cmd/kobana-mcp's browser tests) signs in through the page's redirect and
// opens a running, a waiting, a failed and a succeeded execution, each
// page under the page's CSP with its style sheet, and saves a screenshot
// of each into test-artifacts/kadu-execution-page/ at the repository's
// root (ignored by git; CI keeps it as an artifact).

// executionScreenshots is where the screenshots go, from the package's
// directory.
var executionScreenshots = filepath.Join("..", "test-artifacts", "kadu-execution-page")

// pageChromium is the Chromium the test drives (CI installs Debian's).
var pageChromium = func() string {
	if p := os.Getenv("E2E_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}()

// TestExecutionPageInChromium: the four states of an execution as a
// person sees them, in Chromium, with screenshots.
func TestExecutionPageInChromium(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(pageChromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("needs Chromium at %s: %v", pageChromium, err)
		}
		t.Skipf("needs Chromium at %s: %v", pageChromium, err)
	}
	storetest.RunWith(t, Migrations, func(t *testing.T, db *store.DB) {
		e := startPages(t, db)
		var block atomic.Bool
		release, entered := make(chan struct{}), make(chan struct{}, 1)
		e.cat.hook = func(ctx context.Context, tool string) error {
			if tool != "alpha_list" || !block.Load() {
				return nil
			}
			select {
			case entered <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		}
		defer close(release)
		cleanup := map[string]any{"name": "Limpar cobranças", "allowed_tools": []string{"alpha_list", "alpha_delete"},
			"steps": []map[string]any{
				{"id": "list", "tool": "alpha_list"},
				{"id": "del", "tool": "alpha_delete", "arguments": map[string]any{"id": "{{steps.list.data[1].id}}"}},
			}}
		states := map[string]string{}
		states["succeeded"] = e.runAsClient(e.task(threeSteps()).ID, map[string]any{"month": "2026-03"})
		e.wait(states["succeeded"], records.ExecSucceeded)
		states["waiting"] = e.runAsClient(e.task(cleanup).ID, nil)
		e.wait(states["waiting"], records.ExecWaitingApproval)
		failing := e.task(map[string]any{"name": "Registrar cobrança", "allowed_tools": []string{"alpha_record"},
			"steps": []map[string]any{{"id": "rec", "tool": "alpha_record", "arguments": map[string]any{"boleto": "b1", "amount": 10.5}}}})
		e.cat.mu.Lock()
		e.cat.fail["alpha_record"] = true
		e.cat.mu.Unlock()
		states["failed"] = e.runAsClient(failing.ID, nil)
		e.wait(states["failed"], records.ExecFailed)
		block.Store(true)
		states["running"] = e.runAsClient(e.task(cleanup).ID, nil)
		select {
		case <-entered:
		case <-time.After(30 * time.Second):
			t.Fatal("the running execution never called alpha_list")
		}

		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		bctx, closeBrowser := pageBrowser(ctx, t)
		defer closeBrowser()
		// The first page sends the browser to sign in, which comes back.
		if err := chromedp.Do(bctx,
			chromedp.EmulateViewport(900, 1200),
			chromedp.Navigate(e.URL+ExecutionPagePrefix+states["running"]),
			chromedp.WaitVisible(chromedp.ID("sign-in")),
			chromedp.SendKeys(chromedp.ID("email"), e.Owner.Email),
			chromedp.SendKeys(chromedp.ID("password"), producttest.Password),
			chromedp.Click(chromedp.ID("sign-in")),
			chromedp.WaitVisible(chromedp.ID("steps")),
		); err != nil {
			t.Fatalf("signing in on the way to the page: %v", err)
		}
		dir := filepath.Join(executionScreenshots, string(db.Dialect()))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ state, status, label string }{
			{"running", records.ExecRunning, "Em execução"},
			{"waiting", records.ExecWaitingApproval, "Aguardando uma aprovação"},
			{"failed", records.ExecFailed, "Falhou"},
			{"succeeded", records.ExecSucceeded, "Concluída"},
		} {
			sel := `#status[data-status="` + c.status + `"]`
			if err := chromedp.Do(bctx, chromedp.Navigate(e.URL+ExecutionPagePrefix+states[c.state]), chromedp.WaitVisible(chromedp.ID("steps")),
				chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
				t.Fatalf("%s: %v", c.state, err)
			}
			label, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
			if err != nil || strings.TrimSpace(label) != c.label {
				t.Errorf("%s: the status reads %q (%v), want %q", c.state, label, err, c.label)
			}
			// The style sheet loaded under the page's CSP: the status is
			// a pill.
			radius, err := chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("status")).borderTopLeftRadius`))
			if err != nil || radius != "999px" {
				t.Errorf("%s: the status's border radius %q (%v): the style sheet did not apply", c.state, radius, err)
			}
			png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
				t.Fatalf("%s: screenshot: %v", c.state, err)
			}
			if err := os.WriteFile(filepath.Join(dir, c.state+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// pageBrowser starts a headless Chromium with a fresh profile; the
// function it returns ends it and removes the profile.
func pageBrowser(ctx context.Context, t *testing.T) (context.Context, func()) {
	t.Helper()
	profile := t.TempDir()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(pageChromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// A Brazilian person's browser: the page in Portuguese.
		chromedp.Flag("accept-lang", "pt-BR"),
		chromedp.UserDataDir(profile),
	)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	return bctx, func() { cancelBrowser(); cancelAlloc() }
}
