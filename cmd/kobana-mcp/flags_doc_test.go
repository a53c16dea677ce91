package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

var updateFlagsDoc = flag.Bool("update", false, "rewrite the flag tables of docs/operating.md from serve --help and worker --help")

// operatingDoc is the page whose configuration section holds the flag
// tables (docs/operating.md "Configuration").
const operatingDoc = "../../docs/operating.md"

// helpRow is one flag as a command's --help prints it.
type helpRow struct{ flag, env, def, help string }

// helpRows builds the command's flag set in-process and reads what its
// --help prints: the table is parsed back and each row printed again in
// productkit.Settings' format, so a value the parse could split wrongly (a
// default with a space) fails here instead of reaching the docs. Nothing
// is started: --help returns from Parse.
func helpRows(t *testing.T, command string) []helpRow {
	t.Helper()
	var out bytes.Buffer
	if code := run(context.Background(), []string{command, "--help"}, &out, &out); code != 0 {
		t.Fatalf("%s --help exited %d:\n%s", command, code, out.String())
	}
	var rows []helpRow
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, "  --") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[1], "KOBANA_") {
			t.Fatalf("%s --help: a row not of the form flag, environment, default, meaning: %q", command, line)
		}
		r := helpRow{flag: strings.TrimPrefix(f[0], "--"), env: f[1], def: f[2]}
		rest := line
		for _, field := range f[:3] {
			rest = rest[strings.Index(rest, field)+len(field):]
		}
		r.help = strings.TrimSpace(rest)
		if again := fmt.Sprintf("  --%-24s %-30s %-24s %s", r.flag, r.env, r.def, r.help); again != line {
			t.Fatalf("%s --help: the row of --%s does not read back:\n%q\n%q", command, r.flag, line, again)
		}
		if r.def == `""` {
			r.def = ""
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s --help printed no flags:\n%s", command, out.String())
	}
	return rows
}

// flagTable is the Markdown table of a command's flags, as the docs show it.
func flagTable(rows []helpRow) string {
	cell := strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;")
	var b strings.Builder
	b.WriteString("| flag | environment | default | meaning |\n|---|---|---|---|\n")
	for _, r := range rows {
		def := ""
		if r.def != "" {
			def = "`" + r.def + "`"
		}
		fmt.Fprintf(&b, "| `--%s` | `%s` | %s | %s |\n", r.flag, r.env, def, cell.Replace(r.help))
	}
	return b.String()
}

// TestFlagsDoc keeps docs/operating.md's flag tables what serve --help and
// worker --help print, every flag with its environment variable, default
// and meaning. Run with -update to rewrite them from the code.
func TestFlagsDoc(t *testing.T) {
	// An environment variable of the table would become its default.
	for _, command := range []string{"serve", "worker"} {
		for _, r := range helpRows(t, command) {
			if _, ok := os.LookupEnv(r.env); ok {
				t.Setenv(r.env, "")
				_ = os.Unsetenv(r.env)
			}
		}
	}
	b, err := os.ReadFile(operatingDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, command := range []string{"serve", "worker"} {
		re := regexp.MustCompile(`(?s)(<!-- flags:` + command + ` [^\n]*-->\n)(.*?)(<!-- /flags:` + command + ` -->)`)
		m := re.FindStringSubmatchIndex(doc)
		if m == nil {
			t.Fatalf("%s has no <!-- flags:%s … --> … <!-- /flags:%s --> block", operatingDoc, command, command)
		}
		want := flagTable(helpRows(t, command))
		if got := doc[m[4]:m[5]]; got != want {
			if !*updateFlagsDoc {
				t.Errorf("%s: the %s flag table differs from %s --help (go test ./cmd/kobana-mcp -run TestFlagsDoc -update rewrites it)\n--- docs\n%s--- %s --help\n%s",
					operatingDoc, command, command, got, command, want)
				continue
			}
			doc = doc[:m[4]] + want + doc[m[5]:]
		}
	}
	if *updateFlagsDoc {
		if err := os.WriteFile(operatingDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
