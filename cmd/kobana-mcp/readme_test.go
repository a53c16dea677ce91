package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// walkthroughDocs are the pages holding runnable walkthroughs, from this
// package's directory: each product's page (docs/inbox.md, docs/dunning.md,
// docs/kadu.md) and the README.
var walkthroughDocs = []string{"../../README.md", "../../docs/inbox.md", "../../docs/dunning.md", "../../docs/kadu.md"}

// walkthroughs are the documentation's runnable walkthroughs: a fenced sh
// block right after a "<!-- walkthrough:NAME" comment, keyed by NAME, from
// whichever page holds it.
func walkthroughs(t *testing.T) map[string]string {
	t.Helper()
	re := regexp.MustCompile("(?s)<!-- walkthrough:([a-z]+)[^\n]*-->\n```sh\n(.*?)\n```")
	out := map[string]string{}
	for _, page := range walkthroughDocs {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			name := string(m[1])
			if _, dup := out[name]; dup {
				t.Fatalf("walkthrough:%s appears twice (again in %s)", name, page)
			}
			out[name] = string(m[2])
		}
	}
	return out
}

// TestReadmeWalkthroughs runs each walkthrough of the documentation exactly
// as written, with bash, in a fresh directory that sees the repository (its
// top-level entries linked in) and nothing else: a fresh data directory,
// the default ports, the embedded defaults. What each should show is
// checked in its output, so the pages cannot drift from the product; the
// block's own exit status (it sets -euo pipefail itself) is what passes.
// Each runs on ports of its own (readme_own_ports_test.go), beside the
// others and the package's other parallel tests.
func TestReadmeWalkthroughs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the walkthroughs use curl")
	}
	expect := map[string][]string{
		"inbox": {
			"kobana-autonomous-inbox SMTP intake: smtp://127.0.0.1:2525",
			`"status":"processed"`,
			`"amount_cents":123456`,
			`"due_date":"2026-03-10"`,
			"email.received delivery",
			"email.processed delivery",
			"(signature verified)",
		},
		"dunning": {
			`"quiet_hours_start":"23:59"`,
			`"person_kind":"natural"`,
			`"phones":["+5511987654321"]`,
			`"day":"D-3"`, `"day":"D0"`, `"day":"D+3"`,
			`"message":"Olá Maria da Silva, sua fatura de R$ 1.234,56 vence em `,
			`"skipped_past":0`,
			// The D−3 e-mail, as the local receiver got it over SMTP.
			"message 1: MAIL FROM:<cobranca@demo.local> RCPT TO:<maria@example.com>",
			"From: Cobrança Demo <cobranca@demo.local>",
			"Subject: Sua fatura vence em ",
			"\nOlá Maria da Silva, sua fatura de R$ 1.234,56 vence em ",
			// The e-mail's Pix code of the day, for its amount (BR Code
			// field 54), and the PSP's webhook paying the charge once.
			"Pix copia e cola: 000201",
			"54071234.56",
			`"reconciled":1`,
			`"duplicates":1`,
			// The debtor's page before and after.
			"Olá, Maria da Silva.\n", "Valor atualizado hoje\n", "Nada em aberto\n",
			// Paid, the enrollment stopped, one message in the log.
			`"status":"paid"`,
			`"status":"stopped"`,
			`"stopped_reason":"paid"`,
			`"meta":{"total":1,"page":1`,
			// The overdue charge's prior notice, its report and the
			// removal the payment asked for.
			`"kind":"prior_notice"`,
			`"prior_notice_days":0`,
			`"bureau":"serasa"`,
			`"removal_reason":"paid"`,
			`"status":"removed"`,
			// The settlement letter, made and downloaded.
			`"kind":"settlement_letter"`,
			`"status":"ready"`,
			"application/pdf ",
			"%PDF-",
		},
	}
	expect["kadu"] = []string{
		// The first run: the list, a debtor per e-mail and a charge per
		// boleto (for_each), succeeded.
		"execution ", ": succeeded",
		`\"seq\":1,\"kind\":\"tool_call\",\"tool_name\":\"emails_list\"`,
		`\"seq\":2,\"kind\":\"tool_call\",\"tool_name\":\"dunning_debtors_upsert\"`,
		`\"seq\":3,\"kind\":\"tool_call\",\"tool_name\":\"dunning_debtors_upsert\"`,
		`\"seq\":4,\"kind\":\"tool_call\",\"tool_name\":\"dunning_charges_create\"`,
		`\"seq\":5,\"kind\":\"tool_call\",\"tool_name\":\"dunning_charges_create\"`,
		// The two charges in Dunning, from the boletos' lines.
		`"amount":1234.56`, `"due_date":"2026-03-10"`, `"barcode":"34191091233456788012434567890008513810000123456"`,
		`"amount":987.65`, `"due_date":"2026-03-15"`, `"barcode":"34191091233456788013234567890008113860000098765"`,
		`"allowed_tools":["emails_list","dunning_debtors_upsert","dunning_charges_create","dunning_charges_notify"]`,
		// The second run: stopped at the reminder, approved on the page,
		// the reminder sent once (kept in the outbox).
		"Open http://127.0.0.1:8083/approvals/",
		`\"kind\":\"message\",\"tool_name\":\"dunning_charges_notify\"`,
		`\"seq\":7,\"kind\":\"tool_call\",\"tool_name\":\"dunning_charges_notify\"`,
		`"channel":"email"`, `"to":"cobranca@acme.example"`, `"meta":{"total":1,"page":1`,
		// A business-day schedule's runs: the 5th business day, Carnival
		// 2027 (8-9 February) and Good Friday (26 March) not counted.
		`2027-02-05T08:00:00-03:00`, `2027-03-05T08:00:00-03:00`, `2027-04-07T08:00:00-03:00`,
		`2027-05-07T08:00:00-03:00`, `2027-06-07T08:00:00-03:00`,
		// The agent on the fake model: paused before its second model
		// step by its R$ 1,50 ceiling (one step cost R$ 0,91, R$ 0,59
		// left), continued with R$ 3,00, succeeded; the model asked once
		// before the pause and once after it.
		"fake-model: request 1 (2 messages): asks for dunning_charges_list",
		`\"waiting\":{\"kind\":\"budget\",\"model_step\":2,\"step_cost\":`,
		`\"left\":0.59,\"ceiling\":1.5,\"cost\":0.91,`,
		"fake-model: request 2 (4 messages): answers",
		": succeeded after the raise",
		`\"max_cost\":3,\"cost\":1.82`,
	}
	expect["kadufiles"] = []string{
		// The upload confirmed, the output file downloaded: the same rows.
		`"status":"ready"`, `"filename":"recebiveis.csv"`,
		"documento;vencimento;valor\n0001;2026-03-10;1500,00\n0002;2026-03-15;320,50",
	}
	// The Kadu walkthrough once more, its approval answered from the
	// terminal (`kobana-mcp approvals continue`, step 8's alternative)
	// instead of the page.
	expect["kaduterminal"] = append(append([]string{}, expect["kadu"]...), "Continuar: approved.")
	// What a walkthrough must not print: Dunning sends one e-mail and
	// nothing after the payment.
	reject := map[string][]string{"dunning": {"message 2:"}}
	// Steps a person takes in a browser while the walkthrough waits.
	browse := map[string]string{"kadu": "dunning_charges_notify"}
	// Steps a person takes in another terminal while the walkthrough waits.
	answer := map[string]string{"kaduterminal": "dunning_charges_notify"}
	// Which block each run runs.
	block := map[string]string{"kaduterminal": "kadu"}
	found := walkthroughs(t)
	for name, expected := range expect {
		blockName := name
		if b, ok := block[name]; ok {
			blockName = b
		}
		script, ok := found[blockName]
		if !ok {
			t.Fatalf("the docs have no walkthrough:%s block", blockName)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if name == "kadufiles" {
				if _, err := exec.LookPath("jq"); err != nil {
					if os.Getenv("CI") == "true" {
						t.Fatalf("the files walkthrough needs jq (.ci/run installs it): %v", err)
					}
					t.Skipf("the files walkthrough needs jq: %v", err)
				}
			}
			if _, ok := browse[name]; ok {
				if _, err := os.Stat(chromiumPath); err != nil {
					if os.Getenv("CI") == "true" {
						t.Fatalf("the walkthrough's approval step needs Chromium at %s: %v", chromiumPath, err)
					}
					t.Skipf("the walkthrough's approval step needs Chromium at %s: %v", chromiumPath, err)
				}
			}
			// One try of the walkthrough on ports of its own, in a view of
			// the repository of its own. A try whose server lost a port to
			// another test between choosing it free and binding it (the
			// ports are chosen free, not reserved) is run again on new
			// ports, at most three times; any other failure is the test's.
			try := func() (wants []string, out *syncBuffer, err, berr error) {
				ports := ownPorts(t)
				script := ports.script(script)
				for _, w := range expected {
					wants = append(wants, ports.rewrite(w))
				}
				dir := repoView(t)
				// Each block builds the binary first: on a busy 2-core machine
				// a cold build alone took longer than the walkthrough itself
				// (README "Starting the servers").
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, "bash", "-c", script)
				cmd.Dir = dir
				cmd.Env = append(cleanEnv(), ports.env()...)
				// Its own process group, so whatever the script leaves behind
				// is ended with it.
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
				out = &syncBuffer{}
				cmd.Stdout, cmd.Stderr = out, out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				browsed := make(chan error, 1)
				bctx, bcancel := context.WithCancel(ctx)
				defer bcancel()
				if tool, ok := answer[name]; ok {
					go func() {
						seen, err := approveInTerminal(bctx, out, dir, cmd.Env, tool)
						t.Log(seen)
						if err != nil {
							_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
						}
						browsed <- err
					}()
				} else if tool, ok := browse[name]; ok {
					go func() {
						seen, err := approveWhenAsked(bctx, out, tool)
						t.Log(seen)
						if err != nil {
							// The walkthrough would wait for the person forever.
							_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
						}
						browsed <- err
					}()
				} else {
					browsed <- nil
				}
				err = cmd.Wait()
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				// A walkthrough that ended before asking leaves the browser
				// step nothing to wait for.
				bcancel()
				berr = <-browsed
				return wants, out, err, berr
			}
			wants, out, err, berr := try()
			for i := 1; i < 3 && err != nil && strings.Contains(out.String(), "bind: address already in use"); i++ {
				t.Logf("walkthrough %s lost a port to another test (try %d): running it again on new ports", name, i)
				wants, out, err, berr = try()
			}
			if err == nil && berr != nil {
				t.Fatalf("walkthrough %s, the approval step: %v\n%s", name, berr, out.String())
			}
			if err != nil {
				t.Fatalf("walkthrough %s: %v\n%s", name, err, out.String())
			}
			for _, w := range wants {
				if !strings.Contains(out.String(), w) {
					t.Errorf("walkthrough %s printed no %q:\n%s", name, w, out.String())
				}
			}
			for _, r := range reject[name] {
				if strings.Contains(out.String(), r) {
					t.Errorf("walkthrough %s printed %q:\n%s", name, r, out.String())
				}
			}
		})
	}
}

// repoView is a fresh directory whose entries link to the repository's
// top-level files and folders, so the walkthroughs' relative paths
// (./cmd/kobana-mcp, examples/…) work while what the walkthrough writes
// (the binary, ./data) stays out of the checkout.
func repoView(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		switch e.Name() {
		case ".git", "data", "kobana-mcp", "webhook-receiver", "smtp-receiver", "fake-model", "test-artifacts":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// cleanEnv is the environment without the project's own settings, so the
// walkthrough sees the embedded defaults whatever the test run set.
//
// It builds with -trimpath: each walkthrough runs in a view of the
// repository of its own (repoView), and without -trimpath the build cache
// keys every package of the module by its directory, so each of the
// walkthroughs running at once compiled the whole module again. With it the
// first build's packages serve the others.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KOBANA_") && !strings.HasPrefix(kv, "GOFLAGS=") {
			out = append(out, kv)
		}
	}
	return append(out, "GOFLAGS=-trimpath")
}
