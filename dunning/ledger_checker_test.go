package dunning

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ledgerFiles are the only files whose SQL may UPDATE a charge's money
// and status (ledger.go, docs/decisions.md "One write path per
// aggregate").
var ledgerFiles = map[string]bool{"ledger.go": true}

// chargeColumnsNotMoney are the dunning_charges columns other files may
// still UPDATE, none of them money or status: the listing's counters
// (SyncChargeCount and the count mender's recount, dunning/ledger/counts_store.go) and
// when the debtor was last contacted (send.go).
var chargeColumnsNotMoney = map[string]bool{"counted_status": true, "counted_archived": true, "counted_cents": true, "last_notified_at": true}

var updateChargesSQL = regexp.MustCompile(`(?is)\bUPDATE\s+dunning_charges\b(?:\s+\w+)?\s+SET\s+(.*?)(?:\bWHERE\b|\bRETURNING\b|$)`)

// setColumns are the columns an UPDATE's SET clause assigns: the word
// before each top-level "=".
func setColumns(set string) []string {
	var cols []string
	depth, start := 0, 0
	parts := []string{}
	for i, r := range set {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, set[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, set[start:])
	for _, p := range parts {
		if eq := strings.Index(p, "="); eq > 0 {
			col := strings.TrimSpace(p[:eq])
			if dot := strings.LastIndex(col, "."); dot >= 0 {
				col = col[dot+1:]
			}
			cols = append(cols, strings.ToLower(col))
		}
	}
	return cols
}

// chargeWritesOutsideLedger reports every string literal of src (a Go
// file named name) that UPDATEs dunning_charges setting a column outside
// chargeColumnsNotMoney, unless name is a ledger file.
func chargeWritesOutsideLedger(t *testing.T, fset *token.FileSet, name string, src []byte) []string {
	t.Helper()
	if ledgerFiles[filepath.Base(name)] {
		return nil
	}
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		text, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, m := range updateChargesSQL.FindAllStringSubmatch(text, -1) {
			cols := setColumns(m[1])
			if len(cols) == 0 {
				bad = append(bad, fset.Position(lit.Pos()).String()+": an UPDATE of dunning_charges whose columns cannot be read")
			}
			for _, col := range cols {
				if !chargeColumnsNotMoney[col] {
					bad = append(bad, fset.Position(lit.Pos()).String()+": sets dunning_charges."+col+" outside the ledger (applyCharge)")
				}
			}
		}
		return true
	})
	return bad
}

// TestOneChargeWritePath: no SQL literal of Dunning's code (tests
// aside), in any of its packages, UPDATEs a charge's status or money
// outside ledger.go; the checker itself catches such a write.
func TestOneChargeWritePath(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		seen++
		for _, b := range chargeWritesOutsideLedger(t, fset, path, src) {
			t.Error(b)
		}
		return nil
	})
	if err != nil || seen < 50 {
		t.Fatalf("walked %d files: %v", seen, err)
	}

	for _, tc := range []struct {
		src  string
		want int
	}{
		{"package x\nconst q = `UPDATE dunning_charges SET open_amount_cents = ?, updated_at = ? WHERE id = ?`", 2},
		{"package x\nconst q = \"update dunning_charges set status = 'paid' where id = ?\"", 1},
		{"package x\nconst q = `UPDATE dunning_charges SET counted_status = status, counted_archived = CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END WHERE organization_id = ?`", 0},
		{"package x\nconst q = `UPDATE dunning_charges SET last_notified_at = ? WHERE id = ?`", 0},
		{"package x\nconst q = `UPDATE dunning_debtors SET status = ? WHERE id = ?`", 0},
	} {
		if got := chargeWritesOutsideLedger(t, fset, "sample.go", []byte(tc.src)); len(got) != tc.want {
			t.Errorf("%s: %v, want %d findings", tc.src, got, tc.want)
		}
	}
	if got := chargeWritesOutsideLedger(t, fset, "ledger.go", []byte("package x\nconst q = `UPDATE dunning_charges SET status = ?`")); len(got) != 0 {
		t.Errorf("the ledger itself: %v", got)
	}
}
