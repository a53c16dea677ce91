package msgtemplate

import (
	"strings"
	"testing"
)

// TestRenderIsBoundedByConstruction: the language is literal text and
// {{variable}} only — no loops, repetition, includes or nesting — so a
// rendered message is exactly the template's text with each marker
// replaced once by its value: its length is the text's plus, per marker,
// the value's, whatever the template (no growth to bound). A value that
// looks like a marker is printed, not expanded, so values cannot
// compound either.
func TestRenderIsBoundedByConstruction(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("{{debtor.name}}", 1000)
	vals := Sample
	vals.DebtorName = strings.Repeat("{{debtor.name}}", 100) // 1500 bytes that look like markers
	got, err := Render(big, vals)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1000 * len(vals.DebtorName); len(got) != want {
		t.Errorf("rendered %d bytes, want exactly %d (markers × value)", len(got), want)
	}
	if got != strings.Repeat(vals.DebtorName, 1000) {
		t.Error("a value was expanded as a template")
	}
	// Rendering again what was rendered expands nothing: the value is
	// data, and a second pass is a second, separate template.
	text := "Olá {{debtor.name}}, {{charge.updated_amount}} até {{charge.due_date}}."
	out, err := Render(text, Sample)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(text) - len("{{debtor.name}}{{charge.updated_amount}}{{charge.due_date}}") +
		len(Sample.DebtorName) + len(Sample.UpdatedAmount.String()) + len(Sample.DueDate.BR()); len(out) != want {
		t.Errorf("rendered %d bytes, want %d", len(out), want)
	}
}
