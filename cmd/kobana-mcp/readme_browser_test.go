package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// The Kadu walkthrough stops at an approval link that a person opens in a
// browser, signs in to and answers with Continuar. The test plays that
// person with a real headless Chromium (chromedp), reading the link and
// the demo account's password from what the walkthrough printed, so the
// docs/kadu.md block stays exactly what a person runs.

// chromiumPath is the Chromium the browser step drives (CI installs
// Debian's).
var chromiumPath = func() string {
	if p := os.Getenv("E2E_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}()

var (
	approvalLinkRE = regexp.MustCompile(`Open (http://127\.0\.0\.1:\d+/approvals/[0-9a-f-]+) and choose Continuar`)
	demoPasswordRE = regexp.MustCompile(`(?m)^  password: (\S+)$`)
)

// syncBuffer is the walkthrough's output, written by the script and read
// by the browser step while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// headlessChromium starts a headless Chromium with a fresh profile (a
// person who never signed in) and returns its context; cancel ends it and
// removes the profile.
func headlessChromium(ctx context.Context) (context.Context, context.CancelFunc, error) {
	profile, err := os.MkdirTemp("", "kobana-chromium-")
	if err != nil {
		return nil, nil, err
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
	)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	return bctx, chromiumCloser{cancelBrowser, cancelAlloc, profile}.close, nil
}

// chromiumCloser ends a headlessChromium: the tab, the browser, then its
// profile.
type chromiumCloser struct {
	browser, alloc context.CancelFunc
	profile        string
}

func (c chromiumCloser) close() {
	c.browser()
	c.alloc()
	_ = os.RemoveAll(c.profile)
}

// approveWhenAsked waits for the walkthrough to print an approval link
// and, as the demo owner, opens it in headless Chromium, signs in, checks
// that the page shows the call the walkthrough stops at, and chooses
// Continuar. It returns what the page showed, or why it could not.
func approveWhenAsked(ctx context.Context, out *syncBuffer, wantTool string) (string, error) {
	var link, password string
	for link == "" || password == "" {
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the walkthrough printed no approval link and demo password: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		text := out.String()
		if m := approvalLinkRE.FindStringSubmatch(text); m != nil {
			link = m[1]
		}
		if m := demoPasswordRE.FindStringSubmatch(text); m != nil {
			password = m[1]
		}
	}
	bctx, cancel, err := headlessChromium(ctx)
	if err != nil {
		return "", err
	}
	defer cancel()
	bctx, cancel = context.WithTimeout(bctx, 90*time.Second)
	defer cancel()
	var tool, client string
	var status chromedp.AttributeResult
	err = chromedp.Do(bctx,
		// Not signed in: the page sends the browser to sign in, which
		// comes back to it.
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.ID("sign-in")),
		chromedp.SendKeys(chromedp.ID("email"), "owner@demo.local"),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("sign-in")),
		chromedp.WaitVisible(chromedp.ID("continuar")),
	)
	if err == nil {
		tool, err = chromedp.Run(bctx, chromedp.Text(chromedp.ID("tool-name")))
	}
	if err == nil {
		client, err = chromedp.Run(bctx, chromedp.Text(chromedp.ID("client")))
	}
	if err == nil {
		// Continuar posts the decision; the page that answers is the
		// approval's status (approved, running, then succeeded).
		done := chromedp.CSS(`#status:not([data-status="pending"])`)
		err = chromedp.Do(bctx, chromedp.Click(chromedp.ID("continuar")), chromedp.WaitVisible(done))
		if err == nil {
			status, err = chromedp.Run(bctx, chromedp.AttributeValue(done, "data-status"))
		}
	}
	seen := fmt.Sprintf("approval page %s: tool %q, asked by %q, after Continuar %q", link, tool, client, status.Value)
	if err != nil {
		return seen, fmt.Errorf("chromium on %s: %w", link, err)
	}
	if strings.TrimSpace(tool) != wantTool {
		return seen, fmt.Errorf("the approval page shows %q, want %s", tool, wantTool)
	}
	return seen, nil
}

// approveInTerminal is step 8's alternative to the browser: it waits for
// the walkthrough to print the approval link and, in the walkthrough's
// directory and environment, as another terminal would, runs
// `./kobana-mcp approvals continue LINK --user owner@demo.local --yes`. The
// command's output joins the walkthrough's; the approval must be of
// wantTool and end approved.
func approveInTerminal(ctx context.Context, out *syncBuffer, dir string, env []string, wantTool string) (string, error) {
	var link string
	for link == "" {
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the walkthrough printed no approval link: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		if m := approvalLinkRE.FindStringSubmatch(out.String()); m != nil {
			link = m[1]
		}
	}
	cmd := exec.CommandContext(ctx, "./kobana-mcp", "approvals", "continue", link, "--user", "owner@demo.local", "--yes")
	cmd.Dir, cmd.Env = dir, env
	var got bytes.Buffer
	cmd.Stdout, cmd.Stderr = &got, &got
	err := cmd.Run()
	_, _ = out.Write([]byte("\n[another terminal] $ ./kobana-mcp approvals continue " + link + " --user owner@demo.local --yes\n" + got.String()))
	seen := "kobana-mcp approvals continue " + link + ":\n" + got.String()
	if err != nil {
		return seen, fmt.Errorf("kobana-mcp approvals continue: %w", err)
	}
	if !strings.Contains(got.String(), "  tool:      "+wantTool) || !strings.Contains(got.String(), "Continuar: approved.") {
		return seen, fmt.Errorf("the command did not approve %s", wantTool)
	}
	return seen, nil
}
