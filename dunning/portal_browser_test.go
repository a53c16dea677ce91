package dunning

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kobana/kobana-mcp/dunning/pixpsptest"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/store/storetest"
)

// portalShots is where the browser test saves its screenshots
// (test-artifacts/ is ignored by git; CI keeps it).
const portalShots = "../test-artifacts/dunning-portal"

// portalChromium is the browser the test drives: E2E_CHROMIUM, else the
// system's.
func portalChromium() string {
	if p := os.Getenv("E2E_CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// TestPortalInChromium walks the debtor page in headless Chromium, on a
// phone-sized window, one browser per engine, saving a screenshot of
// each state: the charges open (the copy button, shown by the page's one
// script under its CSP hash, copies the Pix code), an agreement offered,
// accepted on the page, nothing owed once the creditor's PSP reports
// each installment paid with the page's Pix code through the Pix webhook, and the link expired (the neutral page).
func TestPortalInChromium(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(portalChromium()); err != nil {
		t.Skipf("no Chromium at %s: %v", portalChromium(), err)
	}
	if err := os.MkdirAll(portalShots, 0o755); err != nil {
		t.Fatal(err)
	}
	storetest.RunParallel(t, Migrations, func(t *testing.T, db *store.DB) {
		pe, link := portalSetup(t, db)
		engine := string(db.Dialect())
		profile := t.TempDir()
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(portalChromium()), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("lang", "pt-BR"), chromedp.Flag("accept-lang", "pt-BR"), chromedp.UserDataDir(profile))
		defer cancelAlloc()
		bctx, cancelBrowser := chromedp.NewContext(alloc)
		defer cancelBrowser()
		bctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
		defer cancel()
		shot := func(state string) {
			t.Helper()
			png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("%s: screenshot: %v", state, err)
			}
			if err := os.WriteFile(filepath.Join(portalShots, engine+"-"+state+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		text := func(id string) string {
			t.Helper()
			s, err := chromedp.Run(bctx, chromedp.Text(chromedp.ID(id)))
			if err != nil {
				t.Fatalf("text of #%s: %v", id, err)
			}
			return s
		}
		page := pe.URL + link

		// The charges open; the copy button copies the first Pix code.
		if err := chromedp.Do(bctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("copy-1")),
			chromedp.Click(chromedp.ID("copy-1")), chromedp.WaitVisible(chromedp.CSS(`#pix-1-status:not(:empty)`))); err != nil {
			t.Fatalf("charges open: %v", err)
		}
		if got := text("pix-1-status"); got != "Código copiado." {
			t.Fatalf("after copying: %q", got)
		}
		selected, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(function(){var f=document.getElementById("pix-1");return f.value.startsWith("000201")&&f.selectionStart===0&&f.selectionEnd===f.value.length;})()`))
		if err != nil || !selected {
			t.Fatalf("the Pix code was not selected for the copy: %v %v", selected, err)
		}
		shot("1-charges-open")

		// An agreement offered: three options, the second chosen.
		pe.ok(200, "PATCH", "/v1/settings", map[string]any{"portal_agreements_enabled": true, "portal_max_installments": 3,
			"portal_max_discount_percent": 50, "portal_first_due_days": 10})
		if err := chromedp.Do(bctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("agreement")), chromedp.Click(chromedp.ID("offer-2"))); err != nil {
			t.Fatalf("agreement offered: %v", err)
		}
		shot("2-agreement-offered")
		if err := chromedp.Do(bctx, chromedp.Click(chromedp.ID("accept")), chromedp.WaitVisible(chromedp.ID("accepted"))); err != nil {
			t.Fatalf("accepting: %v", err)
		}
		shot("3-accepted")
		list := pe.list("/v1/agreements?debtor_id=maria&status=accepted")
		if len(list.data) != 1 || list.data[0]["installments_count"] != 2.0 || list.data[0]["created_by"] != "debtor:portal" {
			t.Fatalf("agreements after the browser's accept: %v", list.data)
		}

		// Each installment paid with the Pix code the page shows for it,
		// reported by the creditor's PSP through the Pix webhook: nothing
		// owed.
		if err := chromedp.Do(bctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("pix-1"))); err != nil {
			t.Fatalf("the installments' page: %v", err)
		}
		codes, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("textarea.pix")).map(function(t){return t.value})`))
		if err != nil {
			t.Fatalf("the installments' Pix codes: %v", err)
		}
		_, _, charges := installmentsOf(list.data[0])
		if len(codes) != len(charges) {
			t.Fatalf("the page shows %d Pix codes for %d installments", len(codes), len(charges))
		}
		psp := pe.pixWebhook()
		paidAt := pe.clock.Now().UTC().Format(time.RFC3339)
		for i, code := range codes {
			pix, err := brazil.DecodePix(code)
			if err != nil {
				t.Fatalf("the page's Pix code %d: %v", i+1, err)
			}
			at, _ := time.Parse(time.RFC3339, paidAt)
			res, err := psp.Notify(bctx, pixpsptest.Pix{EndToEndID: pixpsptest.EndToEndID("00360305", at, i+1), TxID: pix.TxID,
				Valor: fmt.Sprintf("%d.%02d", pix.AmountCents/100, pix.AmountCents%100), Horario: paidAt})
			if err != nil || res.Status != 200 || !strings.Contains(res.Body, `"reconciled":1`) {
				t.Fatalf("the PSP's webhook for installment %d: %v %+v", i+1, err, res)
			}
		}
		for _, id := range charges {
			if status, open := pe.chargeStatus(id); status != "paid" || open != 0 {
				t.Fatalf("installment %s after its Pix: %s, %v open", id, status, open)
			}
		}
		if err := chromedp.Do(bctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("nothing-owed"))); err != nil {
			t.Fatalf("nothing owed: %v", err)
		}
		shot("4-nothing-owed")

		// The link expired: the neutral page.
		pe.clock.Set(pe.clock.Now().Add(31 * 24 * time.Hour))
		if err := chromedp.Do(bctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.ID("text"))); err != nil {
			t.Fatalf("expired: %v", err)
		}
		if got := text("title"); !strings.Contains(got, "Link indisponível") {
			t.Fatalf("expired link shows %q", got)
		}
		shot("5-link-expired")
	})
}
